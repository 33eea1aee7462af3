#!/usr/bin/env bash
# fuzz-filter.sh [SECONDS] - the device-filter fuzzer alone; kept for old habits: it is
# scripts/fuzz.sh SECONDS filter (all fuzz targets live in tests/fuzz now).
exec "$(dirname "${BASH_SOURCE[0]}")/fuzz.sh" "${1:-60}" filter
