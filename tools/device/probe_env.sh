# The probe scripts' common start, sourced: . tools/device/probe_env.sh
# OUT (default probe_out), M=$OUT/modules (made), and COIL, the binary
# tools/device/coil_bin.sh gives (built here unless $COIL names one; the
# script exits 2 when the build fails, the log's tail on stderr).
OUT=${OUT:-probe_out}
M=$OUT/modules
mkdir -p "$M"
COIL=$(LOG="$OUT/make.log" sh tools/device/coil_bin.sh) || exit 2
