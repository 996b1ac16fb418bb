-- kid 0.1.0 -> 0.2.0: run by ALTER EXTENSION kid UPDATE.
-- Written by hand (CONTRIBUTING.md, "Upgrades"): every object 0.2.0 adds or
-- changes, with its COMMENT and privileges, in the order of the install script.

\echo Use "ALTER EXTENSION kid UPDATE TO '0.2.0'" to load this file. \quit
