#!/usr/bin/env bash
# Installs the system programs the test suite runs for real, when they are missing (Debian/Ubuntu packages):
#   ffmpeg + a DejaVu font   the builder's tests decode real video and draw timestamps on the synthetic clips
#   searx                    the Search Hub's integration test runs Debian's SearXNG-compatible server
#   chromium                 the html pages are screenshotted and driven in headless Chromium
#   postgresql               the PostgreSQL run store's tests start a throwaway cluster (initdb, postgres)
#   tesseract-ocr            the system OCR engine beside tesseract.js
# As root it installs them with apt-get; as anyone else it prints the one apt-get line to run and exits 1.
# `npm test` (vitest) does not install anything itself: README's test command runs this first, and so does CI.
set -euo pipefail

missing=()
if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then missing+=(ffmpeg); fi
if ! fc-match -f '%{file}' "DejaVu Sans Mono" 2>/dev/null | grep -q DejaVu; then missing+=(fonts-dejavu-core fontconfig); fi
if [ ! -f /usr/lib/python3/dist-packages/searx/webapp.py ]; then missing+=(searx); fi
# The OCR tests run tesseract.js (npm); the Debian engine is installed too, so a test or a user comparing against the
# system tesseract finds it.
if ! command -v tesseract >/dev/null; then missing+=(tesseract-ocr); fi
if ! command -v chromium >/dev/null; then missing+=(chromium); fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing+=(postgresql); fi

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: every system package the tests need is installed"
  exit 0
fi
line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: the tests need ${missing[*]}; run as root:" >&2
  echo "  $line" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
