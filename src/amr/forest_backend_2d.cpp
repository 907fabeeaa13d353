// The Forest backend on p4est's 2-D quadtrees (see forest_backend_p4est.inc).
#define TESSERA_FOREST_FACTORY make_forest_backend_2d
#include "amr/forest_backend_p4est.inc"
