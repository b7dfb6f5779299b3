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
if ! go install "${PKG}@${VERSION}"; then
	# Some module proxies refuse version lists; -mod=mod lets the pinned build resolve.
	GOFLAGS=-mod=mod go install "${PKG}@${VERSION}"
fi
echo "installed versitygw ${VERSION} at $BIN"
