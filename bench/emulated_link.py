"""The emulated slow network of the bench scripts, for one mpirun at a time.

A run goes into a private network namespace (unshare -n, needs root) whose loopback is
brought up with a 1500-byte MTU (so the token bucket never sees a packet larger than its
burst) and limited to MBIT Mbit/s by tc's tbf (the kernel has no netem: bandwidth only,
no added delay); MPI is forced onto TCP over that loopback. bench/emulated-network sets
up the same link for a whole sweep; bench/dg-enclaves and bench/radhydro-exec-models wrap
each 2-rank run with over_network.
"""
import os
import shutil
import sys

# OpenMPI on TCP over the namespace's loopback only.
MPI_TCP = ["--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "btl_tcp_if_include",
           "lo"]


def over_network(mbit, mpirun, program):
    """The command running `mpirun` (its argument list up to the program) with `program`
    (the program and its arguments) over a loopback limited to `mbit` Mbit/s."""
    script = (f"ip link set lo up mtu 1500 && tc qdisc replace dev lo root tbf rate "
              f"{mbit}mbit burst 32kbit latency 400ms && exec \"$@\"")
    return ["unshare", "-n", "--", "sh", "-c", script, "sh", *mpirun, *MPI_TCP, *program]


def require_network_tools(name):
    """Exits with one line naming what is missing for over_network (root, tc)."""
    if os.geteuid() != 0 or not shutil.which("tc"):
        sys.exit(f"{name}: --network needs root and tc (Debian package iproute2)")
