#!/usr/bin/env bash
# CI for the TypeScript SDK: .ci/run calls it from the repository's root
# (sdk/typescript/ci.sh). It installs Node from the distribution's packages
# when missing, the package's locked dev dependencies (npm ci), checks that
# the generated client is current, and runs npm test with ORDO_BIN set to a
# freshly built ordo and ORDO_GETH to the geth .ci/run installs in
# $(go env GOPATH)/bin (CI=true makes a missing ORDO_BIN or ORDO_GETH a
# failure).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "== installing Node.js and npm (Debian packages)"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm
fi
echo "== node $(node --version), npm $(npm --version)"
npm ci --no-audit --no-fund
echo "== the generated client is current (npm run generate)"
npm run --silent generate -- --check
echo "== building ordo and the Go example worker for the end-to-end test"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd ../.. && go build -o "$bin/ordo" ./cmd/ordo && go build -o "$bin/worker" ./examples/worker)
geth="$(go env GOPATH)/bin/geth"
[ -x "$geth" ] || geth="$(command -v geth || true)"
echo "== npm test (geth: ${geth:-none})"
ORDO_BIN="$bin/ordo" ORDO_GO_WORKER="$bin/worker" ORDO_GETH="${ORDO_GETH:-$geth}" npm test
