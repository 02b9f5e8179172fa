#!/bin/sh
# Install TablePi on Raspberry Pi OS as a service that starts at boot.
#
#   sudo ./systemd/install.sh            (from the project folder)
#
# What it does: installs the camera, GPIO and I2C packages from apt, copies
# the project to /opt/tablepi, makes a virtual environment there that can see
# the system's picamera2, installs TablePi into it, enables I2C for the OLED,
# creates the `tablepi` user (groups gpio, i2c, video) and enables the
# tablepi service. Games and the PIN are kept in /var/lib/tablepi.
set -eu

PREFIX=/opt/tablepi
UNIT=/etc/systemd/system/tablepi.service
SRC=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
    echo "Run this as root: sudo $0" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "This installer is for Raspberry Pi OS (Debian, apt)." >&2
    exit 1
fi

echo "Installing system packages (picamera2, lgpio, i2c-tools)..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    python3-venv python3-pip python3-picamera2 python3-lgpio i2c-tools

echo "Copying TablePi to $PREFIX..."
mkdir -p "$PREFIX"
if [ "$SRC" != "$PREFIX" ]; then
    # Copy the project itself, not a development virtual environment or caches.
    tar -C "$SRC" --exclude=./.venv --exclude=./.git --exclude='*/__pycache__' -cf - . | tar -C "$PREFIX" -xf -
fi

echo "Making the virtual environment (with the system's picamera2)..."
if [ ! -x "$PREFIX/.venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
"$PREFIX/.venv/bin/pip" install -q --upgrade pip
"$PREFIX/.venv/bin/pip" install -q "$PREFIX[pi]"

echo "Enabling I2C for the OLED..."
if command -v raspi-config >/dev/null 2>&1; then
    raspi-config nonint do_i2c 0
else
    echo "  raspi-config not found; enable I2C by hand if an OLED is fitted." >&2
fi

echo "Creating the tablepi user..."
for group in gpio i2c video; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done
if ! id tablepi >/dev/null 2>&1; then
    useradd --system --user-group --home-dir /var/lib/tablepi --no-create-home \
        --shell /usr/sbin/nologin --groups gpio,i2c,video tablepi
else
    usermod -a -G gpio,i2c,video tablepi
fi

echo "Installing and starting the service..."
install -m 0644 "$PREFIX/systemd/tablepi.service" "$UNIT"
systemctl daemon-reload
systemctl enable tablepi.service
# restart, not start: running the installer again upgrades a running table.
systemctl restart tablepi.service

echo
echo "TablePi is installed and running. Its web address and PIN are on the"
echo "OLED, and in the log:  journalctl -u tablepi -n 20"
