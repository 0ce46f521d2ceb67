#!/bin/sh
# Makes store-format1.tar.gz and expected/ beside this script: a store
# written by sessfs of store format 1 (the release before format 2, commit
# 2678e2e), and what that sessfs showed of it, which TestMigrateFormat1
# holds a migrated store to. Run it with that release's binary:
#   git worktree add /tmp/v1 2678e2e && (cd /tmp/v1 && go build -o /tmp/sessfs-v1 ./cmd/sessfs)
#   cmd/sessfs/testdata/format1/make.sh /tmp/sessfs-v1
set -eu
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../../../../shared/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
s="$bin --store $work/store"
$bin version | grep -q 'store format 1'

# Real sessions, imported: their lines are what format 2 stores slimmer.
$s import "$data"/claude-code/*.jsonl "$data"/codex/*.jsonl >/dev/null
# Forks of an imported branch mid-way, so fork points must move with
# the lines, a fork of a fork, one removed to the session's trash, and
# messages added in sessfs.
$s fork --at 1 delegated-marinating-toast tried-else >/dev/null
$s append --branch tried-else delegated-marinating-toast "Try it another way."
$s fork --from tried-else --at-message 3 delegated-marinating-toast deeper >/dev/null
$s append --branch deeper --role assistant delegated-marinating-toast "Deeper still."
$s fork --at 1 delegated-marinating-toast dropped >/dev/null
$s branch rm delegated-marinating-toast dropped >/dev/null
$s append delegated-marinating-toast "And a note added in sessfs."
$s checkpoint delegated-marinating-toast before-more >/dev/null
# A session made in sessfs.
$s new notes >/dev/null
printf '%s\n' '{"role":"user","content":"first"}' '{"role":"assistant","content":"one"}' \
  '{"role":"user","content":"second"}' '{"role":"assistant","content":"two"}' | $s append notes -
$s fork --at 1 notes alt >/dev/null
$s append --branch alt notes "another second"

rm -rf "$here/expected" && mkdir "$here/expected"
$s ls --all --json | python3 -c 'import json,sys; [print(x["name"]) for x in json.load(sys.stdin)]' | sort > "$work/names"
while read -r name; do
  $s branches --json "$name" | python3 -c 'import json,sys; [print(b["name"]) for b in json.load(sys.stdin)]' > "$work/branches"
  while read -r b; do
    $s show --branch "$b" "$name" > "$here/expected/$name.$b.md"
  done < "$work/branches"
done < "$work/names"
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner -czf "$here/store-format1.tar.gz" store
