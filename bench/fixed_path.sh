# Sourced by bench/run.sh and examples/cortex-m/run.sh before they build firmware: the firmware
# is built through one fixed path, whatever the checkout's.
# shellcheck shell=bash
#
# Cargo names a path dependency outside the building workspace (the runtime, the macros and the
# planner, seen from the firmware's workspace) by its absolute path, and that name goes into
# every symbol's hash (`-C metadata`). The symbols' names order the compiler's work, which steers
# some of its choices: the same sources built from two checkouts differed by 1 % of one
# benchmark model's instructions. Built through the fixed path (a symbolic link to the
# checkout, made here), the firmware is the same bytes from every checkout, so its figures hold
# on every machine. RUSTFLAGS do not enter the hash: the remapping of paths may name the checkout.

# firmware_root REPO_ROOT: points the fixed path at REPO_ROOT and sets `fixed_root` to it. It
# holds a lock (file descriptor 9, until the script exits) so that runs from two checkouts on
# one machine take turns.
firmware_root() {
    fixed_root=/tmp/stowplan-firmware
    exec 9>"$fixed_root.lock"
    flock 9
    if [ -e "$fixed_root" ] && [ ! -L "$fixed_root" ]; then
        echo "error: $fixed_root exists and is not a symbolic link; remove it" >&2
        exit 1
    fi
    ln -sfn "$1" "$fixed_root"
}
