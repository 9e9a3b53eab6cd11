#!/usr/bin/env bash
# The release: builds pbrain-wuzi for Windows and Linux (scripts/build.sh) and writes into
# dist/
#   pbrain-wuzi-VERSION-windows-x86_64.zip   pbrain-wuzi.exe (x86-64-v3: AVX2, as Gomocup's
#                                            machines have), pbrain-wuzi-x86-64.exe (any
#                                            x86-64 processor) and README.txt, at the root
#   pbrain-wuzi-VERSION-linux-x86_64.tar.gz  pbrain-wuzi-VERSION-linux-x86_64/ with the
#                                            Linux executable (any x86-64) and README.txt
#   SHA256SUMS                               the two archives' checksums
# VERSION is the crate's version in Cargo.toml. Archives are reproducible: their files are
# stored in a fixed order, dated the last commit's time, with no owner or extra fields, so
# building the same commit twice gives the same bytes.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/need-packages.sh zip coreutils gzip tar

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# Every date in the archives: the last commit's, or the Unix epoch outside a git checkout.
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export TZ=UTC

windows=$(scripts/build.sh windows x86-64-v3 | tail -n 1)
windows_any=$(scripts/build.sh windows x86-64 | tail -n 1)
linux=$(scripts/build.sh linux x86-64 | tail -n 1)

rm -rf dist
stage=dist/.stage
zip_dir=$stage/windows
tar_name=pbrain-wuzi-$version-linux-x86_64
tar_dir=$stage/$tar_name
mkdir -p "$zip_dir" "$tar_dir"

readme() { sed "s/@VERSION@/$version/g" scripts/dist/README.txt; }
# Windows: CRLF line ends, for Notepad on older Windows.
readme | sed 's/$/\r/' >"$zip_dir/README.txt"
readme >"$tar_dir/README.txt"
install -m 755 "$windows" "$zip_dir/pbrain-wuzi.exe"
install -m 755 "$windows_any" "$zip_dir/pbrain-wuzi-x86-64.exe"
install -m 755 "$linux" "$tar_dir/pbrain-wuzi"
chmod 644 "$zip_dir/README.txt" "$tar_dir/README.txt"
find "$stage" -exec touch -h -d "@$epoch" {} +

zip_name=pbrain-wuzi-$version-windows-x86_64.zip
(cd "$zip_dir" && zip -q -X -9 "../../$zip_name" pbrain-wuzi.exe pbrain-wuzi-x86-64.exe README.txt)
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=gnu \
    -C "$stage" -cf - "$tar_name" | gzip -n -9 >"dist/$tar_name.tar.gz"
rm -rf "$stage"
(cd dist && sha256sum "$zip_name" "$tar_name.tar.gz" >SHA256SUMS)

ls -l dist
cat dist/SHA256SUMS
