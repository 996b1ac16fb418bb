#!/usr/bin/env bash
# Assemble kid's install script on standard output (called by the Makefile):
#   sql/kid_common.sql
#   sql/id_time_order.sql (the timestamptz order the id types' families share)
#   for each id type of sql/id_types.conf: sql/id_type.sql.in instantiated,
#     then its scheme part sql/<part>.sql
#   sql/codokey.sql (a variable-length type of its own)
set -euo pipefail
cd "$(dirname "$0")"

cat kid_common.sql id_time_order.sql
while IFS='|' read -r type bytes byval align unit part text_form comment; do
    case $type in '#'* | '') continue ;; esac
    byval_line=""
    [ "$byval" = yes ] && byval_line=$'\n    PASSEDBYVALUE,'
    while IFS= read -r line; do
        line=${line//@TYPE@/$type}
        line=${line//@LENGTH@/$bytes}
        line=${line//@PASSEDBYVALUE@/$byval_line}
        line=${line//@ALIGNMENT@/$align}
        line=${line//@UNIT@/$unit}
        line=${line//@TEXT_FORM@/$text_form}
        line=${line//@TYPE_COMMENT@/$comment}
        printf '%s\n' "$line"
    done < id_type.sql.in
    if [ -n "$part" ]; then
        cat "$part.sql"
    fi
done < id_types.conf
if [ -f codokey.sql ]; then
    cat codokey.sql
fi
