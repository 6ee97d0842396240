#!/usr/bin/env bash
# Installs what `make test` or `make demo` needs and is missing; installs
# nothing when everything is there.
#   scripts/install-deps.sh test   # the test suite: Rust, clang, BPF headers
#   scripts/install-deps.sh demo   # also what the loader and the demo use
set -euo pipefail

purpose="${1:-test}"

# Debian packages and, for each, a command or file that shows it is there.
# clang, libbpf-dev and linux-libc-dev (linux/bpf.h): the compiler tests
# compile the generated C, the runtime links the system libbpf (-lbpf) and
# its kernel tests load programs; iproute2 makes the veth pairs of
# `p4bpf test --target veth`; bpftool shows that maps carry P4 field names;
# graphviz lays out `p4bpf graph`'s pictures.
test_packages=(
    "clang:command:clang"
    "libbpf-dev:dpkg:libbpf-dev"
    "linux-libc-dev:dpkg:linux-libc-dev"
    "iproute2:command:ip"
    "bpftool:command:bpftool"
    "graphviz:command:dot"
    # The P4Runtime test makes a venv with p4runtime-shell from PyPI, and
    # test certificates with openssl.
    "python3-venv:dpkg:python3-venv"
    "openssl:command:openssl"
)
demo_packages=(
    "llvm:command:llvm-strip"
    "libelf-dev:dpkg:libelf-dev"
    "iputils-ping:command:ping"
    "ethtool:command:ethtool"
    "pkg-config:command:pkg-config"
    "python3-minimal:command:python3"
)

case "$purpose" in
    test) wanted=("${test_packages[@]}") ;;
    demo) wanted=("${test_packages[@]}" "${demo_packages[@]}") ;;
    *) echo "usage: $0 test|demo" >&2; exit 2 ;;
esac

if ! command -v cargo >/dev/null; then
    echo "cargo is missing: install a Rust toolchain (https://rustup.rs), then run make again" >&2
    exit 1
fi

missing=()
for entry in "${wanted[@]}"; do
    IFS=: read -r package how what <<<"$entry"
    case "$how" in
        command) command -v "$what" >/dev/null 2>&1 || missing+=("$package") ;;
        dpkg) dpkg -s "$what" >/dev/null 2>&1 || missing+=("$package") ;;
    esac
done

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

echo "installing missing packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
# The package lists may be empty on a fresh machine: update once, then install.
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
