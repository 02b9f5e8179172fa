#!/bin/sh
# TablePi's environment on a Raspberry Pi, made the same way by the installer
# and by `make run`:
#
#   sh systemd/pi-env.sh VENV [--editable]
#
# - picamera2, libcamera and lgpio come from Raspberry Pi OS's apt packages
#   (never from PyPI: there they are stubs or need a compiler and libcap);
# - VENV sees them (--system-site-packages), and holds the locked versions of
#   everything else (requirements/table.txt: numpy 2, the OpenCV the reader
#   was measured on);
# - apt's simplejpeg, which picamera2 imports, is built against Raspberry Pi
#   OS's numpy 1.24 and fails beside numpy 2 ("numpy.dtype size changed");
#   PyPI's (requirements/pi.txt), built for numpy 2, comes first on the path.
#
# TABLEPI_DRY_RUN=1 prints what it would do instead of doing it.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 VENV [--editable]" >&2
    exit 2
fi
VENV=$1
EDITABLE=
[ "${2:-}" = "--editable" ] && EDITABLE=-e
SRC=$(cd "$(dirname "$0")/.." && pwd)
APT_DIR=${TABLEPI_APT_DIR:-/etc/apt}
PYTHON=${TABLEPI_SYSTEM_PYTHON:-/usr/bin/python3}
PACKAGES=${TABLEPI_APT_PACKAGES:-"python3-venv python3-picamera2 python3-lgpio i2c-tools"}

run() {
    if [ -n "${TABLEPI_DRY_RUN:-}" ]; then
        echo "+ $*"
    else
        "$@"
    fi
}

# The camera and GPIO packages are only in Raspberry Pi OS's own archive.
if ! grep -rqs "archive.raspberrypi" "$APT_DIR/sources.list" "$APT_DIR/sources.list.d"; then
    echo "This is not Raspberry Pi OS: python3-picamera2 and python3-lgpio come from its" >&2
    echo "archive (archive.raspberrypi.com), which $APT_DIR does not list." >&2
    echo "On any other computer use 'make run', which runs the table in simulation." >&2
    exit 1
fi

missing=
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ] || [ -n "${TABLEPI_DRY_RUN:-}" ]; then
    if [ "$(id -u)" -eq 0 ]; then SUDO=; else SUDO="sudo"; fi
    echo "Installing from apt:${missing:- $PACKAGES}"
    run $SUDO apt-get update -qq
    # Without recommends: on Raspberry Pi OS Lite, picamera2's recommends pull in a desktop.
    run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES
fi

echo "Making $VENV (with the system's picamera2 and lgpio) from the lock..."
[ -x "$VENV/bin/python" ] || run "$PYTHON" -m venv --system-site-packages "$VENV"
run "$VENV/bin/python" -m pip install -q --disable-pip-version-check --require-hashes \
    -r "$SRC/requirements/table.txt" -r "$SRC/requirements/pi.txt"
# The players' languages: the catalogs are compiled before the package is installed, so it carries them.
run "$VENV/bin/pybabel" -q compile -d "$SRC/tablepi/locale" -D messages
run "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation \
    $EDITABLE "$SRC"

# Say now, not at the first roll, if the camera library cannot load.
if ! run "$VENV/bin/python" -c "import picamera2, cv2, numpy"; then
    echo "picamera2 does not import in $VENV: the table will run without the Pi camera." >&2
    echo "See the error above; 'rpicam-hello --list-cameras' checks the camera itself." >&2
fi
