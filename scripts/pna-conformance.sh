#!/bin/sh
# Writes conformance/pna.md: every p4tc_samples program and every PNA
# program of p4_16_samples (those including pna.p4), compiled and loaded
# at TC and at XDP, with the first error of each failure. A `*_errors.p4`
# program is one of P4TC's negative tests: it passes when p4bpf rejects
# it with a located diagnostic (file:line:col), and fails when accepted.
# Needs root (loading) and a built p4bpf: `sh scripts/pna-conformance.sh [CORPUS]`.
set -eu
CORPUS=${1:-../shared/corpus/p4c}
P4BPF=${P4BPF:-target/debug/p4bpf}
OUT=conformance/pna.md
WORK=$(mktemp -d /tmp/p4bpf-pna-conf-$$-XXXX)
trap 'rm -rf "$WORK"' EXIT

# One program at one hook: "ok", or the first error line.
compile_and_load() {
    prog=$1 hook=$2
    stem=$(basename "$prog" .p4)
    dir=$WORK/$stem-$hook
    if ! "$P4BPF" compile "$prog" -o "$dir" --hook "$hook" >"$dir.log" 2>&1; then
        echo "compile: $(grep -m1 'error' "$dir.log" | sed 's/^[^ ]*: error: //; s/^p4bpf: error: //; s/^[^ ]*:[0-9]*:[0-9]*: error: //; s/|/\\|/g')"
        return
    fi
    name=pnaconf$$-$hook
    if "$P4BPF" pipeline load "$dir/$stem.o" --name "$name" --hook "$hook" >"$dir.log" 2>&1; then
        "$P4BPF" pipeline unload "$name" >/dev/null 2>&1 || true
        echo ok
    else
        echo "load: $(grep -m1 . "$dir.log" | sed 's/|/\\|/g')"
    fi
}

# One program at one hook, judged: a negative test (`*_errors.p4`) must
# be rejected with a located diagnostic, any other program must load.
try() {
    prog=$1 hook=$2
    case $prog in
    *_errors.p4) ;;
    *) compile_and_load "$prog" "$hook"; return ;;
    esac
    located=$("$P4BPF" compile "$prog" -o "$WORK/negative" --hook "$hook" 2>&1 |
        grep -m1 '^[^ ]*:[0-9]*:[0-9]*: error: ' | sed 's/^[^ ]*:\([0-9]*:[0-9]*\): error: /\1: /; s/|/\\|/g')
    if [ -n "$located" ]; then
        echo "rejected as expected: $located"
    else
        echo "accepted, but P4TC rejects it (a negative test)"
    fi
}

rows() {
    for prog in "$@"; do
        tc=$(try "$prog" tc)
        xdp=$(try "$prog" xdp)
        echo "| \`$(basename "$prog")\` | $tc | $xdp |"
    done
}

P4TC=$(ls "$CORPUS"/p4tc_samples/*.p4)
PNA=$(grep -l 'pna.p4' "$CORPUS"/p4_16_samples/*.p4)
rows $P4TC >"$WORK/p4tc"
rows $PNA >"$WORK/pna"

count() { grep -c "$2" "$1" || true; }
{
    echo "# PNA and P4TC conformance"
    echo
    echo "Written by \`sh scripts/pna-conformance.sh\`; do not edit by hand. Each program"
    echo "is compiled (\`p4bpf compile --hook H\`) and its object loaded (\`p4bpf"
    echo "pipeline load\`, the kernel's verifier) at TC and at XDP. A \`*_errors.p4\`"
    echo "program is one of P4TC's negative tests: it passes (\"rejected as expected\")"
    echo "when p4bpf rejects it with a diagnostic located at file:line:col."
    echo
    echo "| programs | total | pass at TC | pass at XDP |"
    echo "| --- | ---: | ---: | ---: |"
    for set in p4tc pna; do
        total=$(wc -l <"$WORK/$set")
        tc=$(count "$WORK/$set" '^| `[^`]*` | \(ok\|rejected as expected[^|]*\) |')
        xdp=$(count "$WORK/$set" '| \(ok\|rejected as expected[^|]*\) |$')
        label=$([ $set = p4tc ] && echo '`p4tc_samples`' || echo '`p4_16_samples` including pna.p4')
        echo "| $label | $total | $tc | $xdp |"
    done
    echo
    echo "## Failures by reason (TC)"
    echo
    # Reasons as printed, less scratch paths.
    cat "$WORK/p4tc" "$WORK/pna" | awk -F' \\| ' '$2 != "ok" && $2 !~ /^rejected as expected/ { r = $2; gsub(/\/tmp\/[^ ]*/, "FILE", r); print r }' |
        sort | uniq -c | sort -rn | sed 's/^ *\([0-9]*\) /- \1: /'
    echo
    echo "## \`p4tc_samples\`"
    echo
    echo "| program | TC | XDP |"
    echo "| --- | --- | --- |"
    cat "$WORK/p4tc"
    echo
    echo "## PNA programs of \`p4_16_samples\`"
    echo
    echo "| program | TC | XDP |"
    echo "| --- | --- | --- |"
    cat "$WORK/pna"
} >"$OUT"
echo "wrote $OUT"
