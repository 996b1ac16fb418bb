#!/usr/bin/env bash
# The release archive and its metadata (runs alone or from run-all.sh; starts
# a server of its own).
#
# make dist writes the PGXN archive kid-VERSION.zip from git: every file
# git tracks under kid-VERSION/, minus what .gitattributes marks
# export-ignore, and nothing else (no build output, no test results); the
# unpacked archive builds with PGXS and installs kid.so, kid.control and
# the install script, which is the committed one; its make installcheck
# stops with a message on a server without kid preloaded.  META.json follows the
# PGXN meta spec 1.0.0 (https://pgxn.org/spec/): its required keys, their
# forms, and every file it names is in the archive.

set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

DIST_VERSION=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" kid.control)
DIST_NAME=kid-$DIST_VERSION
DIST_ZIP=$KID_TMP/$DIST_NAME.zip

# dist_list ZIP: the names of the files in ZIP (perl's core IO::Uncompress).
dist_list() {
    perl -MIO::Uncompress::Unzip=\$UnzipError -e '
        my $z = IO::Uncompress::Unzip->new($ARGV[0]) or die "$UnzipError\n";
        my $status;
        for ($status = 1; $status > 0; $status = $z->nextStream) {
            my $name = $z->getHeaderInfo->{Name};
            print "$name\n" unless $name =~ m{/$};
        }
        die "bad zip\n" if $status < 0;' "$1"
}
# dist_extract ZIP DIR: the files of ZIP under DIR.
dist_extract() {
    perl -MIO::Uncompress::Unzip=\$UnzipError -MFile::Path=make_path -MFile::Basename=dirname -e '
        my ($zip, $dir) = @ARGV;
        my $z = IO::Uncompress::Unzip->new($zip) or die "$UnzipError\n";
        my $status;
        for ($status = 1; $status > 0; $status = $z->nextStream) {
            my $name = $z->getHeaderInfo->{Name};
            next if $name =~ m{/$};
            die "unsafe name $name\n" if $name =~ m{(^|/)\.\.(/|$)} || $name =~ m{^/};
            make_path(dirname("$dir/$name"));
            open my $out, ">", "$dir/$name" or die "$dir/$name: $!\n";
            binmode $out;
            my $buf;
            while (($status = $z->read($buf)) > 0) { print $out $buf }
            die "read error in $name\n" if $status < 0;
            close $out;
        }
        die "bad zip\n" if $status < 0;' "$1" "$2"
}

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    check "make dist writes $DIST_NAME.zip from git" make -s dist DIST_ZIP="$DIST_ZIP"

    # What git tracks at HEAD, minus export-ignore, is exactly what the
    # archive holds, each under kid-VERSION/.
    dist_expected() {
        git ls-tree -r --name-only HEAD | git check-attr --stdin export-ignore |
            awk -F': ' '$3 != "set" { print $1 }' |
            while read -r path; do
                # export-ignore on a directory covers the files under it
                git check-attr export-ignore -- "${path%%/*}" | grep -q ': set$' || echo "$DIST_NAME/$path"
            done | LC_ALL=C sort
    }
    dist_files() {
        local got want
        got=$(dist_list "$DIST_ZIP" | LC_ALL=C sort) || return 1
        want=$(dist_expected)
        [ "$got" == "$want" ] || { diff <(echo "$want") <(echo "$got"); return 1; }
        [ -n "$got" ]
    }
    check "the archive holds every file git tracks but export-ignore ones, under $DIST_NAME/" dist_files

    dist_needed() {
        local listing f missing=0
        listing=$(dist_list "$DIST_ZIP") || return 1
        for f in Makefile kid.control META.json LICENSE README.md CHANGELOG.md "sql/kid--$DIST_VERSION.sql" \
            $(git ls-tree -r --name-only HEAD src/core src/pg src/sql test/sql expected); do
            grep -qxF "$DIST_NAME/$f" <<<"$listing" || { echo "missing: $f"; missing=1; }
        done
        # No build output, test results, installed npm packages, CI or git files.
        grep -E '\.(o|so|bc|zip)$|/results/|regression\.(diffs|out)$|node_modules|/\.ci/|/\.git' <<<"$listing" &&
            { echo "junk in the archive (above)"; return 1; }
        return $missing
    }
    check "the archive has the sources, scripts, tests and documents, and no build or test output" dist_needed

    dist_builds() {
        local dir=$KID_TMP/unpacked root=$KID_TMP/root
        mkdir -p "$dir" && dist_extract "$DIST_ZIP" "$dir" || return 1
        (cd "$dir/$DIST_NAME" && make -s -j2 >"$KID_TMP/dist-build.log" 2>&1 &&
            make -s install DESTDIR="$root" >>"$KID_TMP/dist-build.log" 2>&1 &&
            make -s check-install-script >>"$KID_TMP/dist-build.log" 2>&1) ||
            { tail -30 "$KID_TMP/dist-build.log"; return 1; }
        local ext lib
        ext=$root$("$PG_CONFIG" --sharedir)/extension
        lib=$root$("$PG_CONFIG" --pkglibdir)
        [ -f "$lib/kid.so" ] || { echo "kid.so not installed"; return 1; }
        cmp kid.control "$ext/kid.control" || return 1
        cmp "sql/kid--$DIST_VERSION.sql" "$ext/kid--$DIST_VERSION.sql" || return 1
    }
    check "the unpacked archive builds (make), installs kid.so, kid.control and the committed install script" dist_builds

    # make installcheck from the archive against a server without kid
    # preloaded stops before pg_regress and says why (with kid preloaded it
    # is what test/run-all.sh's pg_regress runs).
    dist_installcheck_unpreloaded() {
        local port=54402 out
        cluster_init unpreloaded $port "shared_preload_libraries = ''" && cluster_start unpreloaded || return 1
        out=$(cd "$KID_TMP/unpacked/$DIST_NAME" &&
            make -s installcheck PG_CONFIG="$PG_CONFIG" PGHOST="$KID_TMP" PGPORT=$port PGUSER=postgres 2>&1)
        local rc=$?
        cluster_stop unpreloaded
        echo "$out" | sed 's/^/  /'
        [ $rc -ne 0 ] && grep -q "kid is not preloaded on the server it tests" <<<"$out" &&
            grep -q "shared_preload_libraries = 'kid'" <<<"$out" &&
            [ ! -e "$KID_TMP/unpacked/$DIST_NAME/regression.out" ]
    }
    check "make installcheck from the archive, kid not preloaded: stops before pg_regress, saying kid must be preloaded" \
        dist_installcheck_unpreloaded
else
    echo "(not a git checkout: make dist not tried)"
fi

# META.json against the PGXN meta spec 1.0.0.
meta_valid() {
    DIST_VERSION=$DIST_VERSION perl -MJSON::PP -0777 -e '
        open my $f, "<", "META.json" or die "META.json: $!\n";
        my $m = eval { decode_json(join "", <$f>) } or do { print "META.json does not parse: $@"; exit 1 };
        my @err;
        my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+)?$/;
        for my $k (qw(name abstract maintainer license provides meta-spec version)) {
            push @err, "required key $k missing" unless exists $m->{$k};
        }
        push @err, "name: not a PGXN name" unless ($m->{name} // "") =~ /^[^\s\/\\:]{2,}$/;
        push @err, "version: not semver" unless ($m->{version} // "") =~ $semver;
        push @err, "version: not kid.control default_version" unless ($m->{version} // "") eq $ENV{DIST_VERSION};
        push @err, "meta-spec.version: not 1.0.0" unless (($m->{"meta-spec"} // {})->{version} // "") eq "1.0.0";
        my $mt = $m->{maintainer};
        push @err, "maintainer: not a string or a list of strings"
            unless (defined $mt && !ref $mt && length $mt) || (ref $mt eq "ARRAY" && @$mt && !grep { ref || !length } @$mt);
        push @err, "license: not postgresql" unless ($m->{license} // "") eq "postgresql";
        my $p = $m->{provides};
        if (ref $p eq "HASH" && %$p) {
            for my $ext (sort keys %$p) {
                push @err, "provides.$ext.file: missing or not in the tree" unless defined $p->{$ext}{file} && -f $p->{$ext}{file};
                push @err, "provides.$ext.version: not semver" unless ($p->{$ext}{version} // "") =~ $semver;
                push @err, "provides.$ext.docfile: not in the tree" if defined $p->{$ext}{docfile} && !-f $p->{$ext}{docfile};
            }
        } else { push @err, "provides: not a non-empty object" }
        push @err, "provides.kid.file: not sql/kid--$ENV{DIST_VERSION}.sql"
            unless (($p->{kid} // {})->{file} // "") eq "sql/kid--$ENV{DIST_VERSION}.sql";
        if (exists $m->{tags}) {
            push @err, "tags: not a non-empty list of short strings"
                unless ref $m->{tags} eq "ARRAY" && @{$m->{tags}} && !grep { ref || !length || length > 255 } @{$m->{tags}};
        }
        if (exists $m->{release_status}) {
            push @err, "release_status: not stable, testing or unstable" unless $m->{release_status} =~ /^(stable|testing|unstable)$/;
        }
        # stable exactly when CHANGELOG.md dates this version (a release);
        # an unreleased version is "testing" (CONTRIBUTING.md, "Releasing").
        open my $cl, "<", "CHANGELOG.md" or die "CHANGELOG.md: $!\n";
        my $released = grep { /^## \Q$ENV{DIST_VERSION}\E \(\d{4}-\d\d-\d\d\)$/ } <$cl>;
        my $status = $m->{release_status} // "stable";
        push @err, "release_status: $status, but CHANGELOG.md " . ($released ? "dates" : "does not date") . " $ENV{DIST_VERSION}"
            if ($status eq "stable") != !!$released;
        if (exists $m->{resources}) {
            my $r = $m->{resources};
            for my $k (sort keys %$r) {
                push @err, "resources.$k: unknown key" unless $k =~ /^(homepage|bugtracker|repository|x_.*|X_.*)$/;
            }
        }
        if (exists $m->{prereqs}) {
            for my $phase (sort keys %{$m->{prereqs}}) {
                push @err, "prereqs.$phase: unknown phase" unless $phase =~ /^(configure|build|test|runtime|develop)$/;
                for my $rel (sort keys %{$m->{prereqs}{$phase}}) {
                    push @err, "prereqs.$phase.$rel: unknown relation" unless $rel =~ /^(requires|recommends|suggests|conflicts)$/;
                }
            }
        }
        print "$_\n" for @err;
        exit(@err ? 1 : 0);'
}
check "META.json parses and follows the PGXN meta spec 1.0.0 (required keys, versions, licence, provides), stable only once released" meta_valid

kid_finish
