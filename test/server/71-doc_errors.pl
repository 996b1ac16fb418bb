# test/server/71-doc_errors.pl ERRCODES_H DOC...: the kid errors documents name
# with a SQLSTATE, against the SQLSTATE src/pg raises them with (used by
# readme_facts.sh; ERRCODES_H is PostgreSQL's utils/errcodes.h).
#
# An error named is a row "| `message` | SQLSTATE |" of an errors table, or
# `ERROR SQLSTATE message`.  A document may shorten a message ("cannot
# generate uid_global ids until …") or give a value for a %d ("all 256 id
# partitions of node N").  Prints "MESSAGE: SQLSTATE" for each one some
# ereport of src/pg raises, then "DOC:LINE says A, kid raises B: MESSAGE" for
# each whose SQLSTATE differs.  Messages kid does not raise (PostgreSQL's
# own) are left out.
use strict;
use warnings;
my ($errcodes, @docs) = @ARGV;
my %code;
open my $h, "<", $errcodes or die "$errcodes: $!\n";
while (<$h>) {
    next unless /#define (ERRCODE_\w+)\s+MAKE_SQLSTATE\(([^)]*)\)/;
    my ($name, $args) = ($1, $2);
    $code{$name} = join "", $args =~ /'(.)'/g;
}
# A regex matching every text that begins an instance of the format.
# A value in the message (%d, %s) is taken to have no blank.
sub prefix_re {
    my @lit = @_;
    my $r;
    for my $l (reverse @lit) {
        my $pre = join "|", map { quotemeta substr($l, 0, $_) } reverse 1 .. length $l;
        $r = defined $r ? "(?:" . quotemeta($l) . "[^ ]+?(?:$r)|" . quotemeta($l) . "[^ ]+|$pre)" : "(?:$pre)";
    }
    return qr/^(?:$r)$/s;
}
my @raised;    # [regex, SQLSTATE]
for my $f (glob "src/pg/*.cpp src/pg/*.h") {
    open my $in, "<", $f or die "$f: $!\n";
    my $src = do { local $/; <$in> };
    while ($src =~ /\bereport\s*(\((?:[^()]++|(?1))*\))/g) {
        my $body = $1;
        my ($ec) = $body =~ /errcode\((ERRCODE_\w+)\)/ or next;
        my ($lits) = $body =~ /\berrmsg\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)/ or next;
        my $fmt = join "", $lits =~ /"((?:[^"\\]|\\.)*)"/g;
        $fmt =~ s/\\"/"/g;
        my @lit = split /%(?:l*[dus]|m|\.\*s)/, $fmt, -1;
        next if $lit[0] eq "" || length(join "", @lit) < 15;    # "%s: %s" says too little
        push @raised, [prefix_re(@lit), $code{$ec} // $ec];
    }
}
my (@found, @wrong);
for my $doc (@docs) {
    open my $in, "<", $doc or die "$doc: $!\n";
    while (my $line = <$in>) {
        my @named;
        push @named, [$1, $2] if $line =~ /^\|\s*`([^`]+)`[^|]*\|\s*([0-9A-Z]{5})\s*\|/;
        push @named, [$2, $1] while $line =~ /`ERROR:? +([0-9A-Z]{5}):? +([^`]+)`/g;
        for (@named) {
            my ($msg, $doc_code) = @$_;
            $msg =~ s/….*//;
            next if length $msg < 20;
            my %kid = map { $_->[1] => 1 } grep { $msg =~ $_->[0] } @raised;
            next unless %kid;
            my $kid = join "/", sort keys %kid;
            push @found, "$msg: $kid";
            push @wrong, "$doc:$. says $doc_code, kid raises $kid: $msg" if $kid ne $doc_code;
        }
    }
}
print "$_\n" for @found, @wrong;
