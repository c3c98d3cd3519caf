#!/usr/bin/env bash
# Regenerates cmd/lnetsim/default.pgo, the CPU profile the Go toolchain uses for
# profile-guided optimisation of every build of cmd/lnetsim (go build/run/install pick it up
# by default; -pgo=off turns it off). PGO changes what the compiler inlines and how it lays
# out code, never what the program computes: results are byte-identical with and without it.
#
#   scripts/bench/pgo.sh
#
# The profile merges three workloads, so that the whole model is represented, not only the
# bench: `bench cluster` (1,000 clients, 100 ms: the steady state of a routed o2ib cluster),
# `bench cluster --clients 10000 --duration 1ms` (connection set-up at scale) and the
# scenario catalogue (faults, health, routing, ksocklnd, lnetctl commands). It is built from
# a binary compiled without PGO, so a profile never feeds on itself. Regenerate it when hot
# code moved a lot (the toolchain matches functions by name and line offset; a stale
# profile degrades gracefully). Takes about a minute on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -pgo=off -o "$tmp/lnetsim" ./cmd/lnetsim
"$tmp/lnetsim" bench cluster --print-scenario >"$tmp/cluster.yaml"
"$tmp/lnetsim" bench cluster --clients 10000 --duration 1ms --print-scenario >"$tmp/storm.yaml"
"$tmp/lnetsim" run --out "" --cpuprofile "$tmp/cluster.prof" "$tmp/cluster.yaml" >/dev/null
"$tmp/lnetsim" run --out "" --cpuprofile "$tmp/storm.prof" "$tmp/storm.yaml" >/dev/null
# Catalogue scenarios may end with failed expectations by design (exit status 1); the
# profile is what matters here.
"$tmp/lnetsim" run --out "" --cpuprofile "$tmp/catalogue.prof" scenarios/catalogue/*.yaml >/dev/null || true
go tool pprof -proto "$tmp/cluster.prof" "$tmp/storm.prof" "$tmp/catalogue.prof" >"$tmp/default.pgo"
mv "$tmp/default.pgo" cmd/lnetsim/default.pgo
echo "wrote cmd/lnetsim/default.pgo ($(wc -c <cmd/lnetsim/default.pgo) bytes)"
