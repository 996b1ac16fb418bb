# Named checks for the Ruby client tests (test_pg.rb, test_activerecord.rb),
# one line each: "ok: NAME" or "FAILED: NAME: why", then "end: N checks, F
# failed" (count_program_checks in test/lib.sh counts the lines).  A program
# sets $check_prefix to name its library in every line.

$count = 0
$failed = 0
$check_prefix = ''

def report(name, ok, why = '')
  $count += 1
  if ok
    puts "ok: #{$check_prefix}#{name}"
  else
    $failed += 1
    puts "FAILED: #{$check_prefix}#{name}: #{why}"
  end
  $stdout.flush
end

def eq(name, actual, expected)
  report(name, actual == expected, "got #{actual.inspect}, expected #{expected.inspect}")
end

# A scenario that raises where it should not is a failed check of its own.
def scenario(name)
  yield
rescue StandardError => e
  report("#{name} ran to its end", false, "#{e.class}: #{e.message}".gsub("\n", ' | '))
end

# The last line, which tells the runner the program ran to its end; the exit
# status is 0 when nothing failed.
def finish
  puts "end: #{$count} checks, #{$failed} failed"
  exit($failed.zero? ? 0 : 1)
end
