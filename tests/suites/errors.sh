#!/bin/sh
# Error tests: each tests/errors/NAME.py has a line
#   # expect: <the first line coil must print on stderr>
# and optionally
#   # args: <extra options for coil run>
#   # env: VAR=value ...           (set for the coil run)
#   # setup: <shell command>       (run first, in the test's temporary dir)
# coil run must exit with status 2, print exactly that first line, and
# write nothing into its --save directory.  In expect/args/env/setup,
# FILE stands for the test file's path and TMP for a fresh temporary dir.
for f in tests/errors/*.py; do
  name=$(basename "$f" .py)
  T=$(mktemp -d)
  sub() { sed -n "s/^# $1: //p" "$f" | head -1 | sed -e "s|FILE|$f|g" -e "s|TMP|$T|g"; }
  want=$(sub expect)
  args=$(sub args)
  envs=$(sub env)
  setup=$(sub setup)
  [ -n "$setup" ] && (cd "$T" && sh -c "$setup") >/dev/null 2>&1
  # shellcheck disable=SC2086
  env $envs "$COIL" run "$f" --save "$T/out" $args >/dev/null 2>"$T/err"
  rc=$?
  got=$(head -1 "$T/err")
  if [ -z "$want" ]; then
    echo "FAIL errors/$name: no '# expect:' line"
  elif [ "$rc" -ne 2 ]; then
    echo "FAIL errors/$name: exit status $rc, expected 2 ($(head -3 "$T/err" | tr '\n' ' '))"
  elif [ "$got" != "$want" ]; then
    echo "FAIL errors/$name: got '$got', expected '$want'"
  elif [ -e "$T/out" ] && [ -n "$(ls -A "$T/out")" ]; then
    echo "FAIL errors/$name: left files in the --save directory"
  else
    echo "ok errors/$name"
  fi
  chmod -R u+w "$T" 2>/dev/null
  rm -rf "$T"
done
