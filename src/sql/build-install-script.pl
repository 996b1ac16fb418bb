#!/usr/bin/perl
# Write kid's install script to standard output, from the sources in this
# directory (CONTRIBUTING.md, "How the install script is built"):
#
#   perl src/sql/build-install-script.pl [--conf FILE] > sql/kid--VERSION.sql
#
# It reads kid.sql.in and copies it line by line, carrying out the lines
# that are a directive and nothing else:
#
#   @include FILE@        copy src/sql/FILE here (directives inside it too)
#   @id_type NAME@        id_type.sql.in, with the values of [NAME] in
#                         id_types.conf (each record is used exactly once)
#   @if KEY@ @else@ @endif@   in id_type.sql.in: keep lines when the record's
#                         yes/no KEY is yes (nestable)
#
# In id_type.sql.in, @NAME@ is the value of the record's key name (@TYPE@:
# the record's [name]).  A value replaces its placeholder literally and is
# never read again.  Where it lands is checked: a text value (printable
# ASCII, no backslash) only inside a '...' literal (with ' doubled) or a --
# comment; an identifier, a number or an alignment anywhere.  The template
# has no E'' strings or dollar quotes, so its literals are plain to find.
# Anything the generator cannot place safely is an error naming file and
# line, and then nothing is written.
#
# Plain perl 5 (perl-base is part of every Debian), no modules to install.
use strict;
use warnings;

my $dir = $0 =~ m{^(.*)/[^/]*$} ? $1 : '.';
my $conf_path = "$dir/id_types.conf";
if (@ARGV == 2 && $ARGV[0] eq '--conf') {
    $conf_path = $ARGV[1];
} elsif (@ARGV) {
    die "usage: $0 [--conf FILE]\n";
}

# What each key of id_types.conf holds, and so where it may be placed.
my %KIND = (
    type                  => 'identifier',   # the [name] of the record
    length                => 'integer',      # INTERNALLENGTH, bytes
    passed_by_value       => 'yes/no',
    alignment             => 'alignment',
    unit                  => 'text',         # the time unit, in comments
    text_form             => 'text',
    type_comment          => 'text',
    bigint_cast           => 'yes/no',
    id_name               => 'identifier',   # how comments name one id
    to_bigint_comment     => 'text',
    from_bigint_comment   => 'text',
    from_bigint_leakproof => 'yes/no',
    bigint_assignment     => 'yes/no',
    negative_bigints      => 'text',
);
my %REQUIRED = map { $_ => 1 } qw(length passed_by_value alignment unit text_form type_comment bigint_cast);

# Shown in error messages and source comments: paths as the reader types them.
sub shown { my ($path) = @_; $path =~ s{^\./}{}; return $path }

# ---------------------------------------------------------------- the records
my (%record, %record_line, @record_order);
{
    open my $fh, '<', $conf_path or die shown($conf_path) . ": $!\n";
    my $name;
    while (my $line = <$fh>) {
        my $where = shown($conf_path) . ":$.";
        chomp $line;
        die "$where: a carriage return or other control character\n" if $line =~ /[\x00-\x08\x0a-\x1f\x7f]/;
        next if $line =~ /^\s*(#|$)/;
        if ($line =~ /^\[(.*)\]$/) {
            $name = $1;
            die "$where: [$name]: a type name is ^[a-z_][a-z0-9_]*\$\n" unless $name =~ /^[a-z_][a-z0-9_]*$/;
            die "$where: [$name] twice\n" if $record{$name};
            $record{$name} = { type => $name };
            $record_line{$name} = $.;
            push @record_order, $name;
            next;
        }
        die "$where: expected [type name] or key = value\n" unless $line =~ /^([a-z_]+) = (.*)$/;
        my ($key, $value) = ($1, $2);
        die "$where: key = value before the first [type name]\n" unless defined $name;
        die "$where: unknown key '$key'\n" unless $KIND{$key} && $key ne 'type';
        die "$where: '$key' twice in [$name]\n" if exists $record{$name}{$key};
        my $kind = $KIND{$key};
        my $ok = $kind eq 'identifier' ? $value =~ /^[a-z_][a-z0-9_]*$/
               : $kind eq 'integer'    ? $value =~ /^[1-9][0-9]{0,3}$/
               : $kind eq 'alignment'  ? $value =~ /^(char|int2|int4|double)$/
               : $kind eq 'yes/no'     ? $value =~ /^(yes|no)$/
               :                         $value =~ /^[\x20-\x5b\x5d-\x7e]+$/ && $value !~ /^ | $/;
        unless ($ok) {
            my %what = (identifier => 'an identifier, ^[a-z_][a-z0-9_]*$', integer => 'a number of bytes',
                        alignment => 'char, int2, int4 or double', 'yes/no' => 'yes or no',
                        text => 'printable ASCII text without backslash, not starting or ending with a space');
            die "$where: $key must be $what{$kind}\n";
        }
        $record{$name}{$key} = $value;
    }
    for my $name (@record_order) {
        for my $key (sort keys %REQUIRED) {
            die shown($conf_path) . ":$record_line{$name}: [$name] has no $key\n" unless exists $record{$name}{$key};
        }
    }
}

# ---------------------------------------------------------------- the sources
my $out = '';
my %instantiated;
my $last_source = '';

# Each block of output starts with a comment naming where it comes from; a
# block resumes with one after an included file or template ended.
sub source_comment {
    my ($source) = @_;
    return if $source eq $last_source;
    $out .= "-- (from $source)\n";
    $last_source = $source;
}

sub read_lines {
    my ($file) = @_;
    open my $fh, '<', "$dir/$file" or die shown("$dir/$file") . ": $!\n";
    my @lines = <$fh>;
    for my $i (0 .. $#lines) {
        die shown("$dir/$file") . ":" . ($i + 1) . ": no newline at the end of the line\n" unless $lines[$i] =~ s/\n\z//;
    }
    return @lines;
}

sub copy_file {
    my ($file) = @_;
    die "$file: a source file name is ^[a-z_][a-z0-9_.]*\$ in src/sql\n" unless $file =~ /^[a-z_][a-z0-9_.]*$/;
    my $path = shown("$dir/$file");
    my @lines = read_lines($file);
    my $source = $path;
    $last_source = '';
    for my $i (0 .. $#lines) {
        my $line = $lines[$i];
        my $where = "$path:" . ($i + 1);
        if ($line =~ /^\@include (\S+)\@$/) {
            copy_file($1);
            $source = "$path, continued";
        } elsif ($line =~ /^\@id_type (\S+)\@$/) {
            my $name = $1;
            die "$where: [$name] is not in " . shown($conf_path) . "\n" unless $record{$name};
            die "$where: [$name] instantiated twice\n" if $instantiated{$name}++;
            instantiate($name);
            $source = "$path, continued";
        } elsif (($line =~ s/\@extschema\@//gr) =~ /\@[A-Za-z_ ]*\@/) {
            # @extschema@ is CREATE EXTENSION's own placeholder; anything
            # else between @s is a directive or placeholder out of place.
            die "$where: a placeholder or directive that is not a line of its own here\n";
        } else {
            source_comment($source) unless $line eq '' && $source ne $last_source;
            $out .= "$line\n";
        }
    }
}

# id_type.sql.in for one record.  Each line is cut into code, '...' literals
# and a -- comment, so that every placeholder is placed knowing where it is.
sub instantiate {
    my ($name) = @_;
    my $template = 'id_type.sql.in';
    my $path = shown("$dir/$template");
    my $r = $record{$name};
    my @lines = read_lines($template);
    my $source = "$path for [$name] of " . shown($conf_path) . ", line $record_line{$name}";
    $last_source = '';
    my @keep = (1);    # one entry per open @if, whether its lines are kept
    for my $i (0 .. $#lines) {
        my $line = $lines[$i];
        my $where = "$path:" . ($i + 1);
        if ($line =~ /^\@if ([a-z_]+)\@$/) {
            my $key = $1;
            die "$where: \@if $key\@: $key is not a yes/no key\n" unless ($KIND{$key} // '') eq 'yes/no';
            die "$where: [$name] has no $key\n" if $keep[-1] && !exists $r->{$key};
            push @keep, $keep[-1] && ($r->{$key} // 'no') eq 'yes';
            next;
        }
        if ($line eq '@else@') {
            die "$where: \@else\@ without \@if\n" if @keep < 2;
            $keep[-1] = $keep[-2] && !$keep[-1];
            next;
        }
        if ($line eq '@endif@') {
            die "$where: \@endif\@ without \@if\n" if @keep < 2;
            pop @keep;
            next;
        }
        die "$where: a directive out of place\n" if $line =~ /^\@[a-z_]+ /;
        next unless $keep[-1];
        $out .= "-- (from $source)\n" if $last_source ne $source && $line ne '';
        $last_source = $source if $line ne '';
        $out .= substitute($line, $r, $where) . "\n";
    }
    die "$path: \@if\@ without \@endif\@\n" if @keep != 1;
}

sub substitute {
    my ($line, $r, $where) = @_;
    my $result = '';
    my $state = 'code';    # code, literal ('...') or comment (-- to the end)
    # Tokens: a placeholder, a quote, a comment start, or any other run.
    for my $token ($line =~ /(\@[A-Za-z_]+\@|'|--|[^\@'-]+|[\@-])/g) {
        if ($token =~ /^\@([A-Za-z_]+)\@$/ && $1 ne 'extschema') {
            my $key = lc $1;
            die "$where: \@$1\@: placeholders are upper case\n" if $1 ne uc $1;
            my $kind = $KIND{$key} or die "$where: \@$1\@ is no key of id_types.conf\n";
            die "$where: \@$1\@: [$r->{type}] has no $key\n" unless exists $r->{$key};
            my $value = $r->{$key};
            die "$where: \@$1\@ is yes or no: use \@if $key\@\n" if $kind eq 'yes/no';
            if ($kind eq 'text') {
                if ($state eq 'literal') {
                    $value =~ s/'/''/g;
                } elsif ($state ne 'comment') {
                    die "$where: \@$1\@ is text: only inside a '...' literal or a -- comment\n";
                }
            }
            $result .= $value;
            next;
        }
        if ($state ne 'comment' && $token =~ /[\\\$]/) {
            # E'...' escapes and dollar quotes would hide where literals end.
            die "$where: a backslash or \$ outside a -- comment: the template has no E'' or dollar quotes\n";
        }
        if ($state eq 'code') {
            $state = 'literal' if $token eq "'";
            $state = 'comment' if $token eq '--';
        } elsif ($state eq 'literal') {
            $state = 'code' if $token eq "'";    # '' closes and reopens
        }
        $result .= $token;
    }
    die "$where: a '...' literal that does not end on its line\n" if $state eq 'literal';
    return $result;
}

copy_file('kid.sql.in');
for my $name (@record_order) {
    die shown($conf_path) . ":$record_line{$name}: [$name] is never instantiated (no \@id_type $name\@)\n"
        unless $instantiated{$name};
}
print $out;
