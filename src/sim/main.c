/*
 * herd-sim: the program behind `herd sim` (src/cmd/herd.c runs it from the
 * directory herd is in). A program of its own because it links the
 * scheduling core, which the commands do not.
 */
#include "sim/sim.h"

int main(int argc, char **argv)
{
    return cmd_herd_sim(argc, argv);
}
