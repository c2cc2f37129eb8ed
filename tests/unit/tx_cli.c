/* The triton-run command as a program of its own, until main.c dispatches
 * `coil triton-run` to tx_main: build/test/tx_cli KERNEL.py --grid ... */
#include "cmd/cmd.h"

int main(int argc, char **argv) { return tx_main(argc - 1, argv + 1); }
