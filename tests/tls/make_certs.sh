#!/bin/sh
# Makes a throw-away PKI in DIR for the TLS tests and benchmarks (nothing that
# expires is committed): ca.{crt,key}; server.{crt,key} for localhost and
# 127.0.0.1, signed by ca; client.{crt,key} signed by ca (mutual TLS);
# other-ca.crt and stranger.{crt,key}, a localhost certificate from a CA
# nobody trusts. Usage: make_certs.sh DIR
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1 || { echo "make_certs.sh: $* failed" >&2; "$@"; exit 1; }; }

ca() {  # ca NAME CN
  quiet openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=$2" -keyout "$1.key" -out "$1.crt"
}
leaf() {  # leaf NAME CN CA EXT
  quiet openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
    -keyout "$1.key" -out "$1.csr"
  printf '%s\n' "$4" > "$1.ext"
  quiet openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -days 2 \
    -extfile "$1.ext" -out "$1.crt"
  rm -f "$1.csr" "$1.ext"
}

ca ca "duet test CA"
ca other-ca "duet untrusted CA"
leaf server localhost ca "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"
leaf client "duet test client" ca "extendedKeyUsage=clientAuth"
leaf stranger localhost other-ca "subjectAltName=DNS:localhost,IP:127.0.0.1"
