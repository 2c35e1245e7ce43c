#!/usr/bin/env bash
# Records one trace of the corpus: a Debian kernel under QEMU (TCG), booted straight into
# init.sh (busybox-static), which prints the topology from sysfs and the scheduler domains,
# traces the sched events while its workload runs, and prints the trace gzipped and base64'd
# on the serial console. Not run by the tests; how the corpus's qemu-* traces were made
# (testdata/traces/README.md).
#
#   record.sh NAME KERNEL_DEB SMP SECONDS ARCH
#   e.g. record.sh x86-4cpu-6.1 linux-image-6.1.0-47-amd64-unsigned_6.1.170-3_amd64.deb 4 5 x86_64
#        record.sh arm64-8cpu-6.1 linux-image-6.1.0-47-arm64-unsigned_6.1.170-3_arm64.deb \
#            8,sockets=1,clusters=2,cores=4,threads=1 5 aarch64
#
# QEMU_ACCEL: tcg,thread=multi (default), or tcg,thread=single for 32 CPUs and more (one
# host thread per vCPU stalls such a guest in RCU on a 2-core host).
# QEMU_CPU picks the x86 CPU model (max; Skylake-Client to show SMT siblings in the guest).
# QEMU_MACHINE picks the arm64 machine (virt; virt,gic-version=3 for more than 8 CPUs).
# EXTRA_APPEND adds to the kernel command line (sched_verbose: 6.6+ lists its domains in
# debugfs only with it).
# Needs (Debian 12): qemu-system-x86 / qemu-system-arm 1:7.2+dfsg-7+deb12u18 (or
# bookworm-backports' 1:10.0.2, session 42), cpio, busybox-static
# (for arm64, busybox-static_1.35.0-4+deb12u1+b1_arm64.deb from the Debian pool). The kernel
# .deb comes from deb.debian.org (bullseye 5.10, bookworm 6.1, trixie 6.12).
set -euo pipefail
name=$1 deb=$2 smp=$3 secs=$4 arch=$5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
dpkg-deb -x "$deb" "$work/k"
kernel=$(ls "$work"/k/boot/vmlinuz-*)
mkdir -p "$work"/initrd/{bin,proc,sys,dev,tmp}
cp "$here/init.sh" "$work/initrd/init"
chmod +x "$work/initrd/init"
case $arch in
  x86_64)
    cp /bin/busybox "$work/initrd/bin/busybox"
    qemu=(qemu-system-x86_64 -accel "${QEMU_ACCEL:-tcg,thread=multi}" -cpu "${QEMU_CPU:-max}")
    console=ttyS0 ;;
  aarch64)
    dpkg-deb -x "${BUSYBOX_ARM64_DEB:?the arm64 busybox-static .deb}" "$work/bb"
    cp "$work/bb/bin/busybox" "$work/initrd/bin/busybox"
    qemu=(qemu-system-aarch64 -M "${QEMU_MACHINE:-virt}" -accel "${QEMU_ACCEL:-tcg,thread=multi}" -cpu cortex-a72)
    console=ttyAMA0 ;;
esac
(cd "$work/initrd" && find . | cpio -o -H newc 2>/dev/null | gzip > "$work/initrd.gz")
"${qemu[@]}" -m 2048 -smp "$smp" -kernel "$kernel" -initrd "$work/initrd.gz" \
  -append "console=$console loglevel=4 panic=-1 trace_s=$secs ${EXTRA_APPEND:-}" \
  -nographic -no-reboot -serial "file:$work/serial.txt" -monitor none
tr -d '\r' < "$work/serial.txt" | sed -n '/===INFO===/,/===END INFO===/p' > "$name.info"
tr -d '\r' < "$work/serial.txt" | sed -n '/===TRACE===/,/===END TRACE===/p' | grep -v '===' \
  | base64 -d | gunzip > "$name.ftrace.txt"
xz -9 -k "$name.ftrace.txt"
rm -rf "$work"
