#pragma once
// The outer trace of a face on the domain boundary (non-periodic axes): the trace of the
// element a ghost element would hold, built from the inner element's own trace on that face
// (face_traces layout: q, then the normal flux, each kNodeVars x n^(dim-1)).
//   outflow     the inner trace copied: the Riemann problem of two equal states, whose flux
//               is the inner element's flux.
//   reflecting  the mirror image of the inner element: normal momentum negated in q; the
//               normal flux of the mirrored state is -R F(q) (R negates the normal momentum),
//               so every flux variable but the normal momentum's changes sign. The mass and
//               energy fluxes through the wall cancel exactly.

namespace euler::dg {

/// What a boundary face does.
enum class BoundaryTrace { outflow, reflecting };

/// Writes the outer trace (face_trace_size(n, dim) values) of a face normal to `axis` from
/// the inner trace. Pure; callable concurrently.
void boundary_trace(int n, int dim, int axis, BoundaryTrace kind, const double* inner,
                    double* outer);

}  // namespace euler::dg
