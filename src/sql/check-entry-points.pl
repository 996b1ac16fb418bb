#!/usr/bin/perl
# Check that kid's SQL scripts and its built library name the same C entry
# points (make check-install-script runs it; CONTRIBUTING.md, "How the
# install script is built"):
#
#   perl src/sql/check-entry-points.pl kid.so ALLOWED sql/kid--*.sql
#
# The entry points are made by macros (KID_FUNCTION, and the families of
# src/pg/fixed_bytes_type.h and uint64_type.h that expand to it), so no
# source lists them: the library's dynamic symbols do.  PostgreSQL calls a
# C function `sym` (AS 'MODULE_PATHNAME', 'sym') through two exported
# symbols, pg_finfo_sym (PG_FUNCTION_INFO_V1) and sym.
#
#   - Every symbol a script names must be exported with its pg_finfo_:
#     otherwise CREATE EXTENSION (or a call from older SQL, whose symbols a
#     new library keeps) fails with "could not find function".
#   - Every pg_finfo_ the library exports must be named by a script, or be
#     listed in ALLOWED with the reason it is not: otherwise it is dead code,
#     or SQL that was meant to use it does not.
#   - An ALLOWED line must name an exported entry point that no script
#     names, so that the list cannot go stale.
#
# ALLOWED: one `symbol  reason` per line; # comments and blank lines.
# Prints every problem and exits 1 when there is one.  Plain perl 5.
use strict;
use warnings;

die "usage: $0 LIBRARY ALLOWED SCRIPT...\n" unless @ARGV >= 3;
my ($library, $allowed_path, @scripts) = @ARGV;

# The library's defined dynamic symbols.
my %exported;
open my $nm, '-|', 'nm', '-D', '--defined-only', $library or die "nm: $!\n";
while (<$nm>) {
    $exported{$1} = 1 if /^\S*\s+[A-Za-z]\s+(\S+)$/;
}
close $nm or die "nm -D --defined-only $library failed\n";
my %entry = map { s/^pg_finfo_//r => 1 } grep { /^pg_finfo_/ } keys %exported;
die "$library exports no pg_finfo_ symbol: not kid's library?\n" unless %entry;

# The symbols the scripts name, and where first.
my %named;
for my $script (@scripts) {
    open my $fh, '<', $script or die "$script: $!\n";
    while (my $line = <$fh>) {
        while ($line =~ /'MODULE_PATHNAME'\s*,\s*'([^']*)'/g) {
            $named{$1} //= "$script:$.";
        }
    }
}

my %allowed;
{
    open my $fh, '<', $allowed_path or die "$allowed_path: $!\n";
    while (my $line = <$fh>) {
        next if $line =~ /^\s*(#|$)/;
        if ($line =~ /^(\w+)\s+\S/) {
            $allowed{$1} = "$allowed_path:$.";
        } else {
            die "$allowed_path:$.: expected `symbol  reason`\n";
        }
    }
}

my @problems;
for my $sym (sort keys %named) {
    next if $entry{$sym} && $exported{$sym};
    push @problems, "$named{$sym}: names C function $sym, but $library does not export "
        . ($exported{$sym} ? "pg_finfo_$sym (no PG_FUNCTION_INFO_V1)" : $entry{$sym} ? $sym : "pg_finfo_$sym and $sym");
}
for my $sym (sort keys %entry) {
    next if $named{$sym} || $allowed{$sym};
    push @problems, "$library: entry point $sym (pg_finfo_$sym) is named by no script of sql/ "
        . "(use it, remove it, or list it in $allowed_path with the reason)";
}
for my $sym (sort keys %allowed) {
    push @problems, "$allowed{$sym}: $sym is not an entry point of $library" unless $entry{$sym};
    push @problems, "$allowed{$sym}: $sym is named by $named{$sym}: remove it from the list" if $named{$sym};
}
print "$_\n" for @problems;
exit(@problems ? 1 : 0);
