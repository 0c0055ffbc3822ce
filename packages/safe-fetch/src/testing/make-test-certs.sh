#!/bin/sh
# Regenerates the TEST-ONLY certificates beside this script: a throwaway CA (its key is
# deleted at the end, so nothing else can ever be signed by it) and a server certificate
# for localhost, stub.safe-fetch.test, 127.0.0.1 and ::1, both valid for 100 years.
# Never trust test-only-ca.pem outside tests.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -days 36500 \
  -keyout "$work/ca.key" -out test-only-ca.pem -subj "/CN=safe-fetch TEST-ONLY CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl req -newkey rsa:2048 -nodes -keyout test-only-server.key -out "$work/server.csr" \
  -subj "/CN=localhost"
cat > "$work/ext.cnf" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,DNS:stub.safe-fetch.test,IP:127.0.0.1,IP:::1
EXT
openssl x509 -req -days 36500 -in "$work/server.csr" -CA test-only-ca.pem -CAkey "$work/ca.key" \
  -CAcreateserial -CAserial "$work/ca.srl" -out test-only-server.pem -extfile "$work/ext.cnf"
