// The Forest backend on p4est's 3-D octrees (p8est): the 2-D source renamed by p4est's
// p4est_to_p8est.h (see forest_backend_p4est.inc).
#include <p4est_to_p8est.h>
#define TESSERA_FOREST_FACTORY make_forest_backend_3d
#include "amr/forest_backend_p4est.inc"
