#!/bin/sh
# Writes conformance/v1model.md: every STF of p4_16_samples whose program
# includes v1model.p4 and instantiates V1Switch, run by `p4bpf test` at kernel TC, kernel XDP and
# user (TC code), with the first failure of each; and, unless --stf-only,
# every V1Switch program compiled and loaded at TC and XDP. Needs root
# (kernel runs, loading), clang and a built p4bpf:
# `sh scripts/v1model-conformance.sh [--stf-only] [CORPUS]`.
set -eu
LOADS=yes
[ "${1:-}" = --stf-only ] && { LOADS=no; shift; }
CORPUS=${1:-../shared/corpus/p4c}
P4BPF=${P4BPF:-$(pwd)/target/debug/p4bpf}
JOBS=${JOBS:-2}
OUT=conformance/v1model.md
WORK=$(mktemp -d /tmp/p4bpf-v1-conf-$$-XXXX)
trap 'rm -rf "$WORK"' EXIT
export P4BPF WORK

# One STF on one target: "PASS", or "FAIL" and the first failing line.
cat >"$WORK/stf.sh" <<'ONE'
stf=$1 target=$2 hook=$3
log=$WORK/$(basename "$stf" .stf)-$target-$hook.log
if "$P4BPF" test "${stf%.stf}.p4" "$stf" --target "$target" --hook "$hook" >"$log" 2>&1; then
    echo PASS
elif grep -q '^not applicable at XDP' "$log"; then
    # Failing only at frames shorter than the Ethernet header XDP keeps.
    echo "n/a (XDP)"
else
    # A packet the kernel cannot run explains the expects that fail around it.
    why=$(grep -m1 'not supported here' "$log" || grep -m1 -E 'FAIL|error' "$log" || tail -n1 "$log")
    echo "FAIL $why" | sed 's/|/\\|/g; s#/tmp/[^ ]*#FILE#g; s#[^ ]*/p4_16_samples/##g'
fi
ONE

# One program at one hook: "ok", or the first error line.
cat >"$WORK/load.sh" <<'ONE'
prog=$1 hook=$2
dir=$WORK/load-$(basename "$prog" .p4)-$hook
# timeout kills the process group, clang included: a program whose C clang
# needs minutes for counts as not compiled.
timeout -s KILL 120 "$P4BPF" compile "$prog" -o "$dir" --hook "$hook" >"$dir.log" 2>&1
status=$?
if [ $status -eq 124 ] || [ $status -eq 137 ]; then
    echo "compile: did not finish in 120 s"
elif [ $status -ne 0 ]; then
    echo "compile: $(grep -m1 error "$dir.log" | sed 's/|/\\|/g; s#[^ ]*/p4_16_samples/##g')"
elif timeout -s KILL 120 "$P4BPF" pipeline load "$dir"/*.o --name "v1conf$$" --hook "$hook" >"$dir.log" 2>&1; then
    "$P4BPF" pipeline unload "v1conf$$" >/dev/null 2>&1 || true
    echo ok
else
    echo "load: $(grep -m1 . "$dir.log" | sed 's/|/\\|/g; s#/tmp/[^ ]*#FILE#g')"
fi
rm -rf "$dir" "$dir.log"
ONE

# One STF's row: its three results and the first failure.
cat >"$WORK/row.sh" <<'ONE'
stf=$1
tc=$(sh "$WORK/stf.sh" "$stf" kernel tc)
xdp=$(sh "$WORK/stf.sh" "$stf" kernel xdp)
user=$(sh "$WORK/stf.sh" "$stf" user tc)
first=""
for r in "tc: $tc" "xdp: $xdp" "user: $user"; do
    case $r in *": FAIL "*) [ -z "$first" ] && first=$(echo "$r" | sed 's/ FAIL / /') ;; esac
done
# A cell: PASS, FAIL (its reason goes to the last column) or n/a (XDP).
cell() { case $1 in FAIL*) echo FAIL ;; *) echo "$1" ;; esac; }
echo "| $(basename "$stf") | $(cell "$tc") | $(cell "$xdp") | $(cell "$user") | $first |"
ONE

cat >"$WORK/loadrow.sh" <<'ONE'
echo "| \`$(basename "$1")\` | $(sh "$WORK/load.sh" "$1" tc) | $(sh "$WORK/load.sh" "$1" xdp) |"
ONE

# A v1model program includes v1model.p4 and instantiates V1Switch; a file
# declaring its own `package V1Switch` (or a fragment others include) is not one.
PROGRAMS=$(grep -l 'V1Switch' "$CORPUS"/p4_16_samples/*.p4 | xargs grep -l -E '#include *[<"]v1model\.p4[>"]')
for p in $PROGRAMS; do [ -f "${p%.p4}.stf" ] && echo "${p%.p4}.stf"; done >"$WORK/stfs"
xargs -P "$JOBS" -n 1 sh "$WORK/row.sh" <"$WORK/stfs" | sort >"$WORK/rows"
if [ $LOADS = yes ]; then
    echo "$PROGRAMS" | xargs -P "$JOBS" -n 1 sh "$WORK/loadrow.sh" | sort >"$WORK/loads"
fi

# Rows whose column `col` (1-based after the leading `|`) says PASS or ok.
count() { awk -F' \\| ' -v col="$2" '{ sub(/ \|$/, "", $col) } $col == "PASS" || $col == "ok" { n++ } END { print n + 0 }' "$1"; }
total=$(wc -l <"$WORK/rows")
xdp_total=$((total - $(grep -c '| n/a (XDP) |' "$WORK/rows" || true)))
{
    echo "# v1model conformance (issue 10)"
    echo
    echo "Written by \`sh scripts/v1model-conformance.sh\`; do not edit by hand. Every STF of"
    echo "\`p4_16_samples\` whose program includes \`v1model.p4\` and instantiates \`V1Switch\` (files that"
    echo "declare their own \`package V1Switch\` are not v1model programs), run with \`p4bpf test PROGRAM STF\`"
    echo "at \`--target kernel --hook tc\`, \`--target kernel --hook xdp\` and \`--target user --hook tc\`."
    echo
    echo "XDP's total leaves out the STFs marked \"n/a (XDP)\": those whose every failure at XDP is at a"
    echo "frame shorter than 14 bytes, sent or expected. XDP keeps at least an Ethernet header"
    echo "(\`bpf_xdp_adjust_head\`/\`adjust_tail\` refuse to leave less), so no XDP program can run them."
    echo
    echo "| target | passed | of |"
    echo "|---|---|---|"
    echo "| kernel, TC | $(count "$WORK/rows" 2) | $total |"
    echo "| kernel, XDP | $(count "$WORK/rows" 3) | $xdp_total |"
    echo "| user | $(count "$WORK/rows" 4) | $total |"
    if [ $LOADS = yes ]; then
        loads=$(wc -l <"$WORK/loads")
        echo
        echo "Compile + load (\`p4bpf compile\`, then \`p4bpf pipeline load\`: the kernel's verifier) of"
        echo "every \`V1Switch\` program of \`p4_16_samples\`: $(count "$WORK/loads" 2) of $loads at TC,"
        echo "$(count "$WORK/loads" 3) of $loads at XDP."
    fi
    echo
    echo "## First failure reasons (kernel TC)"
    echo
    awk -F' \\| ' '$2 != "PASS" { print $5 }' "$WORK/rows" | sed 's/ |$//; s/^tc: //; s/^[^:]*stf:[0-9]*)//; s/.*\(error: \)/\1/' |
        cut -c1-100 | sort | uniq -c | sort -rn | sed 's/^ *\([0-9]*\) /- \1: /'
    echo
    echo "## Every STF"
    echo
    echo "| STF | TC | XDP | user | first failure (target: line) |"
    echo "|---|---|---|---|---|"
    cat "$WORK/rows"
    if [ $LOADS = yes ]; then
        echo
        echo "## Compile and load, every V1Switch program"
        echo
        echo "| program | TC | XDP |"
        echo "|---|---|---|"
        cat "$WORK/loads"
    fi
} >"$OUT"
echo "wrote $OUT"
