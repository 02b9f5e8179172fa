#!/bin/sh
# Install TablePi on Raspberry Pi OS (Bookworm) as a service that starts at boot.
#
#   sudo ./systemd/install.sh            (from the project folder)
#   TABLEPI_DRY_RUN=1 ./systemd/install.sh   prints what it would do, changes nothing
#
# What it does: makes TablePi's environment in /opt/tablepi/.venv with
# systemd/pi-env.sh (apt's picamera2 and lgpio without recommends, a virtual
# environment that sees them, the locked packages, TablePi itself), copies
# the project there, enables I2C for the OLED, creates the `tablepi` user
# (groups gpio, i2c, video) and enables the tablepi service. Games and the
# PIN are kept in /var/lib/tablepi.
set -eu

PREFIX=${TABLEPI_PREFIX:-/opt/tablepi}
UNIT=/etc/systemd/system/tablepi.service
SRC=$(cd "$(dirname "$0")/.." && pwd)

run() {
    if [ -n "${TABLEPI_DRY_RUN:-}" ]; then
        echo "+ $*"
    else
        "$@"
    fi
}

if [ "$(id -u)" -ne 0 ] && [ -z "${TABLEPI_DRY_RUN:-}" ]; then
    echo "Run this as root: sudo $0" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "This installer is for Raspberry Pi OS (Debian, apt)." >&2
    exit 1
fi

# The same environment `make run` makes on a Pi; it checks that this is Raspberry Pi OS first.
sh "$SRC/systemd/pi-env.sh" "$PREFIX/.venv"

echo "Copying TablePi to $PREFIX..."
run mkdir -p "$PREFIX"
if [ "$SRC" != "$PREFIX" ]; then
    # Copy the project itself, not a development virtual environment or caches.
    if [ -n "${TABLEPI_DRY_RUN:-}" ]; then
        echo "+ tar -C $SRC --exclude=./.venv --exclude=./.git -cf - . | tar -C $PREFIX -xf -"
    else
        tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='*/__pycache__' -cf - . | tar -C "$PREFIX" -xf -
    fi
fi

echo "Enabling I2C for the OLED..."
if command -v raspi-config >/dev/null 2>&1; then
    run raspi-config nonint do_i2c 0
else
    echo "  raspi-config not found; enable I2C by hand if an OLED is fitted." >&2
fi

echo "Creating the tablepi user..."
for group in gpio i2c video; do
    getent group "$group" >/dev/null || run groupadd --system "$group"
done
if ! id tablepi >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir /var/lib/tablepi --no-create-home \
        --shell /usr/sbin/nologin --groups gpio,i2c,video tablepi
else
    run usermod -a -G gpio,i2c,video tablepi
fi

echo "Installing and starting the service..."
run install -m 0644 "$PREFIX/systemd/tablepi.service" "$UNIT"
run systemctl daemon-reload
run systemctl enable tablepi.service
# restart, not start: running the installer again upgrades a running table.
run systemctl restart tablepi.service

echo
echo "TablePi is installed and running. Its web address and PIN are on the"
echo "OLED, and in the log:  journalctl -u tablepi -n 20"
