#!/usr/bin/perl
# test/literals/binary_mutations.pl - random mutations of valid binary ids,
# one binary COPY file per row, and the check of what the server did with
# them (used by test/server/14-random_literals.sh; perl-base only).
#
#   binary_mutations.pl make SEED COUNT DIR < seeds.tsv
#       seeds.tsv: "type<TAB>hex of the send() bytes" of valid ids.  For each
#       type writes DIR/TYPE/N.bin (a PGCOPY file of one row: int4 N and the
#       payload), DIR/TYPE.tsv (N, payload hex, mutation, whether the payload
#       is valid) and DIR/TYPE.psql, which \copy-es each file into table
#       lit_bin_TYPE, writing "row N" to standard error before each (and
#       psql the SQLSTATE of each error after it), then copies the table
#       back out in binary to DIR/TYPE.out.
#   binary_mutations.pl check DIR TYPE
#       reads DIR/TYPE.tsv, DIR/TYPE.results (psql's standard error) and DIR/TYPE.out
#       (the table copied back out in binary) and prints one summary line
#       "TYPE mutations accepted rejected sqlstates violations", then the
#       violations.  A violation: accepted and invalid, rejected and valid,
#       rejected with a SQLSTATE other than 22P03, or an accepted payload
#       that does not come back out byte for byte.
use strict;
use warnings;

# Whether a payload is a valid id of the type, from the specs.
sub valid {
    my ($type, $p) = @_;
    my $len = length $p;
    if ($type eq 'sno') { return $len == 10; }
    if ($type eq 'atproto_tid' || $type eq 'koid') { return $len == 8; }
    if ($type eq 'uid') {
        return 0 unless $len == 8;
        my $v = unpack 'Q>', $p;
        # megaseconds:20 seconds:20 step:10 sequence:14
        return (($v >> 24) & 0xFFFFF) <= 999999 && (($v >> 14) & 0x3FF) <= 976;
    }
    if ($type eq 'uid_global') {
        return 0 unless $len == 12;
        my $low = unpack 'N', substr($p, 8, 4);
        # the top 10 bits of the seconds (bits 75..66, right after the
        # megaseconds) are at most 999999 >> 10 under every interval
        my $high = unpack 'N', substr($p, 0, 4);
        return (($low >> 14) & 0x3FF) <= 976 && (($high >> 2) & 0x3FF) <= 976;
    }
    if ($type eq 'codokey') { return $len >= 1 && $len <= 16 && $p =~ /\A[0-9a-z]+\z/; }
    die "unknown type $type";
}

sub rand_bytes { my $n = shift; return join '', map { chr int rand 256 } 1 .. $n; }

# An out-of-range field of a well-sized payload, or a foreign byte.
sub bad_field {
    my ($type, $p) = @_;
    if ($type eq 'uid' && length $p == 8) {
        my $v = unpack 'Q>', $p;
        if (rand() < 0.5) {
            $v = ($v & ~(0xFFFFF << 24)) | ((1000000 + int rand 48576) << 24);
        } else {
            $v = ($v & ~(0x3FF << 14)) | ((977 + int rand 47) << 14);
        }
        return pack 'Q>', $v;
    }
    if ($type eq 'uid_global' && length $p == 12) {
        if (rand() < 0.5) {
            my $high = unpack 'N', substr($p, 0, 4);
            $high = ($high & ~(0x3FF << 2) & 0xFFFFFFFF) | ((977 + int rand 47) << 2);
            return (pack 'N', $high) . substr($p, 4, 8);
        }
        my $low = unpack 'N', substr($p, 8, 4);
        $low = ($low & ~(0x3FF << 14) & 0xFFFFFFFF) | ((977 + int rand 47) << 14);
        return substr($p, 0, 8) . pack 'N', $low;
    }
    if ($type eq 'codokey' && length $p) {
        my @foreign = ('A', 'Z', '-', '.', ' ', "\0", "\n", "\x7f", "\x80", "\xc3", "\xff", '{', '/', ':');
        substr($p, int rand length $p, 1) = $foreign[int rand @foreign];
        return $p;
    }
    return $p . rand_bytes(1 + int rand 1000);    # every value is valid: make it too long
}

sub mutate {
    my ($type, $p, $others) = @_;
    my $len = length $p;
    my $kind = int rand 12;
    if ($kind == 0) {
        for (1 .. 1 + int rand 3) { substr($p, int rand $len, 1) = chr int rand 256 if $len; }
        return ($p, 'bytes');
    }
    if ($kind == 1) {
        if ($len) { my $i = int rand $len; substr($p, $i, 1) = chr(ord(substr($p, $i, 1)) ^ (1 << int rand 8)); }
        return ($p, 'bit');
    }
    return (substr($p, 0, int rand $len), 'truncated') if $kind == 2;
    return ($p . rand_bytes(1 + int rand 8), 'extended') if $kind == 3;
    return (rand_bytes($len), 'random, same length') if $kind == 4;
    return (rand_bytes(int rand(2 * $len + 3)), 'random length') if $kind == 5;
    if ($kind == 6) { my $c = rand() < 0.5 ? "\0" : "\xff"; return ($c x $len, 'all 00 or all ff'); }
    return ('', 'empty') if $kind == 7;
    return (bad_field($type, $p), 'field out of range') if $kind == 8 || $kind == 9;
    return ($others->[int rand @$others], 'another type') if $kind == 10;
    # A shuffle of its own bytes.
    my @b = split //, $p;
    for (my $i = @b - 1; $i > 0; $i--) { my $j = int rand($i + 1); @b[$i, $j] = @b[$j, $i]; }
    return (join('', @b), 'shuffled');
}

sub copy_file {
    my ($n, $p) = @_;
    return "PGCOPY\n\xff\r\n\0" . pack('NN', 0, 0)
        . pack('n', 2) . pack('N', 4) . pack('N', $n) . pack('N', length $p) . $p
        . pack('n', 0xFFFF);
}

sub spew {
    my ($path, $data) = @_;
    open my $fh, '>:raw', $path or die "$path: $!";
    print $fh $data;
    close $fh or die "$path: $!";
}

sub make {
    my ($seed, $count, $dir) = @_;
    srand $seed;
    my (%seeds, @all);
    while (my $line = <STDIN>) {
        chomp $line;
        my ($type, $hex) = split /\t/, $line;
        next unless defined $hex;
        my $p = pack 'H*', $hex;
        push @{ $seeds{$type} }, $p;
        push @all, $p;
    }
    for my $type (sort keys %seeds) {
        mkdir "$dir/$type" or die "$dir/$type: $!";
        my @s = @{ $seeds{$type} };
        my ($manifest, $script) = ('', "\\set ON_ERROR_STOP 0\n\\set VERBOSITY sqlstate\n");
        for my $n (1 .. @s + $count) {
            my ($p, $kind) = $n <= @s ? ($s[$n - 1], 'seed') : mutate($type, $s[int rand @s], \@all);
            spew("$dir/$type/$n.bin", copy_file($n, $p));
            $manifest .= join("\t", $n, unpack('H*', $p), $kind, valid($type, $p) ? 1 : 0) . "\n";
            $script .= "\\warn row $n\n\\copy lit_bin_$type (n, id) FROM '$dir/$type/$n.bin' (FORMAT binary)\n";
        }
        $script .= "\\copy (SELECT n, id FROM lit_bin_$type ORDER BY n) TO '$dir/$type.out' (FORMAT binary)\n";
        spew("$dir/$type.tsv", $manifest);
        spew("$dir/$type.psql", $script);
    }
}

# The rows of a binary COPY file: n => payload.
sub read_copy {
    my $path = shift;
    open my $fh, '<:raw', $path or die "$path: $!";
    local $/;
    my $d = <$fh>;
    close $fh;
    die "$path: not a PGCOPY file\n" unless substr($d, 0, 11) eq "PGCOPY\n\xff\r\n\0";
    my $pos = 15;
    my $ext = unpack 'N', substr($d, $pos, 4);
    $pos += 4 + $ext;
    my %rows;
    while (1) {
        my $fields = unpack 'n', substr($d, $pos, 2);
        $pos += 2;
        last if $fields == 0xFFFF;
        die "$path: $fields fields\n" unless $fields == 2;
        my @f;
        for (1 .. 2) {
            my $len = unpack 'l>', substr($d, $pos, 4);
            $pos += 4;
            push @f, $len < 0 ? undef : substr($d, $pos, $len);
            $pos += $len if $len > 0;
        }
        $rows{ unpack 'N', $f[0] } = $f[1];
    }
    return \%rows;
}

sub check {
    my ($dir, $type) = @_;
    my (%payload, %kind, %valid, %result, %state);
    open my $m, '<', "$dir/$type.tsv" or die "$dir/$type.tsv: $!";
    while (<$m>) {
        chomp;
        my ($n, $hex, $kind, $valid) = split /\t/;
        ($payload{$n}, $kind{$n}, $valid{$n}) = (pack('H*', $hex), $kind, $valid);
    }
    close $m;
    # psql's standard error: "row N" before each \copy, then its error if any.
    open my $r, '<', "$dir/$type.results" or die "$dir/$type.results: $!";
    my $row;
    while (<$r>) {
        chomp;
        if (/^row (\d+)$/) {
            $row = $1;
            $result{$row} = 1;
        } elsif (defined $row && /ERROR:\s+([0-9A-Z]{5})\s*$/) {
            ($result{$row}, $state{$row}) = (0, $1);
        } else {
            ($result{$row // 0}, $state{$row // 0}) = (0, "unexpected output '$_'");
        }
    }
    close $r;
    my $out = read_copy("$dir/$type.out");
    my ($mutations, $accepted, $rejected, %states, @violations) = (0, 0, 0);
    for my $n (sort { $a <=> $b } keys %payload) {
        my $what = "row $n ($kind{$n}, " . unpack('H*', $payload{$n}) . ')';
        $mutations++ unless $kind{$n} eq 'seed';
        if (!exists $result{$n}) {
            push @violations, "$what: no result";
        } elsif ($result{$n}) {
            $accepted++ unless $kind{$n} eq 'seed';
            push @violations, "$what: accepted, but not a valid payload" unless $valid{$n};
            push @violations, "$what: accepted, but not copied back out byte for byte"
                unless defined $out->{$n} && $out->{$n} eq $payload{$n};
        } else {
            $rejected++ unless $kind{$n} eq 'seed';
            $states{ $state{$n} }++;
            push @violations, "$what: rejected with $state{$n}, but a valid payload" if $valid{$n};
            push @violations, "$what: rejected with unexpected SQLSTATE $state{$n}" unless $state{$n} eq '22P03';
        }
    }
    for my $n (keys %$out) {
        push @violations, "row $n copied out but never accepted" unless $result{$n};
    }
    printf "%s %d %d %d %s %d\n", $type, $mutations, $accepted, $rejected,
        join(',', sort keys %states) || '-', scalar @violations;
    print "  $_\n" for @violations[0 .. ($#violations < 19 ? $#violations : 19)];
}

my $cmd = shift // '';
if ($cmd eq 'make') { make(@ARGV); }
elsif ($cmd eq 'check') { check(@ARGV); }
else { die "usage: $0 make SEED COUNT DIR < seeds.tsv | check DIR TYPE\n"; }
