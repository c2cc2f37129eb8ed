#!/bin/sh
# Error tests: each tests/errors/NAME.py has a line
#   # expect: <the first line coil must print on stderr>
# and optionally
#   # args: <extra options for coil run>
# coil run must exit with status 2, print exactly that first line, and
# write nothing into its --save directory.  "FILE" in the expected line
# stands for the test file's path.
for f in tests/errors/*.py; do
  name=$(basename "$f" .py)
  want=$(sed -n 's/^# expect: //p' "$f" | head -1 | sed "s|FILE|$f|g")
  args=$(sed -n 's/^# args: //p' "$f" | head -1)
  save=$(mktemp -d)
  err=$(mktemp)
  # shellcheck disable=SC2086
  "$COIL" run "$f" --save "$save/out" $args >/dev/null 2>"$err"
  rc=$?
  got=$(head -1 "$err")
  if [ "$rc" -ne 2 ]; then
    echo "FAIL errors/$name: exit status $rc, expected 2 ($(head -3 "$err" | tr '\n' ' '))"
  elif [ "$got" != "$want" ]; then
    echo "FAIL errors/$name: got '$got', expected '$want'"
  elif [ -e "$save/out" ] && [ -n "$(ls -A "$save/out")" ]; then
    echo "FAIL errors/$name: left files in the --save directory"
  else
    echo "ok errors/$name"
  fi
  rm -rf "$save" "$err"
done
