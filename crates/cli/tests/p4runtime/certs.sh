#!/usr/bin/env bash
# Makes a throwaway CA, a server certificate for 127.0.0.1 and a client
# certificate, all signed by the CA, in folder $1 (the TLS test's).
set -euo pipefail
cd "$1"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=p4bpf-test-ca 2>/dev/null
for who in server client; do
    openssl req -newkey rsa:2048 -nodes -keyout "$who.key" -out "$who.csr" -subj "/CN=p4bpf-test-$who" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' >"$who.ext"
    openssl x509 -req -in "$who.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -out "$who.pem" -days 1 -extfile "$who.ext" 2>/dev/null
done
