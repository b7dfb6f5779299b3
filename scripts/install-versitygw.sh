#!/usr/bin/env bash
# Installs versitygw (a real S3-compatible server used by the blob store tests) into
# $(go env GOPATH)/bin, once. It is a test tool, not a dependency of thumbforge, so it is
# built outside the project's module (cd to a temp dir) and never touches go.mod.
set -euo pipefail

VERSION="${VERSITYGW_VERSION:-v1.8.0}"
PKG="github.com/versity/versitygw/cmd/versitygw"
BIN="$(go env GOPATH)/bin/versitygw"

# The binary reports no version of its own; the Go build info names the module version.
if [ -x "$BIN" ] && go version -m "$BIN" 2>/dev/null | grep -qE "^\s+mod\s+github.com/versity/versitygw\s+${VERSION}\b"; then
	echo "versitygw ${VERSION} already at $BIN"
	exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export CGO_ENABLED=0 GOBIN="$(go env GOPATH)/bin"
mkdir -p "$GOBIN"
if [ "${VERSITYGW_FORCE_FALLBACK:-}" != 1 ] && go install "${PKG}@${VERSION}"; then
	:
else
	# Fallback for proxies that refuse what `go install mod@version` asks for: resolve the
	# pinned version in a throwaway module and build the command from there.
	go mod init versitygw-install >/dev/null 2>&1
	GOFLAGS=-mod=mod go get "github.com/versity/versitygw@${VERSION}"
	GOFLAGS=-mod=mod go build -o "$BIN" "$PKG"
fi
echo "installed versitygw ${VERSION} at $BIN"
