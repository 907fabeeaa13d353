"""Renders a tessera plot file with ParaView: a real-client check of the XDMF + HDF5 output.

Run with ParaView's batch interpreter (Debian `paraview`), offscreen or under xvfb-run:
  xvfb-run -a pvbatch tools/paraview_render.py out/euler.xdmf -o rho.png [--field rho]
Opens the time series (.xdmf) or one output (.xmf) with ParaView's XDMF reader, goes to the
last time, cuts the plane z = Z (default mid-domain), colours it by the cell field, draws every
block's outline, looks along -z,
writes a PNG and prints what ParaView read (blocks, cells, field range, times).
Not part of the test command: it needs ParaView and a display server.
"""
import argparse
import sys

from paraview import simple


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("xdmf", help="PREFIX.xdmf (series) or PREFIX_<step>.xmf (one output)")
    parser.add_argument("-o", "--out", default="paraview.png", help="PNG path")
    parser.add_argument("--field", default="rho", help="cell field to colour by (default rho)")
    parser.add_argument("--z", type=float, default=None, help="plane z = Z (default: mid-domain)")
    args = parser.parse_args()

    reader = simple.XDMFReader(FileNames=[args.xdmf])
    times = [float(t) for t in reader.TimestepValues] or [0.0]
    last = times[-1]
    reader.UpdatePipeline(last)
    if args.field not in reader.CellData.keys():
        sys.exit(f"paraview_render.py: no cell field '{args.field}' in {args.xdmf} "
                 f"(has {', '.join(reader.CellData.keys())})")
    info = reader.GetDataInformation()
    lo, hi = reader.CellData[args.field].GetRange()
    print(f"{args.xdmf}: {len(times)} time(s), last t = {last:.6g}; "
          f"{info.GetNumberOfCells()} cells, {args.field} in [{lo:.6g}, {hi:.6g}]")

    view = simple.CreateView("RenderView")
    view.ViewSize = [900, 900]
    view.ViewTime = last
    view.OrientationAxesVisibility = 0
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    # The plane z = --z through every block (a 2-D run's blocks are one cell thick in z).
    bounds = info.GetBounds()
    z = args.z if args.z is not None else 0.5 * (bounds[4] + bounds[5])
    cut = simple.Slice(Input=reader)
    cut.SliceType = "Plane"
    cut.SliceType.Origin = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), z]
    cut.SliceType.Normal = [0, 0, 1]
    shown = simple.Show(cut, view)
    simple.ColorBy(shown, ("CELLS", args.field))
    shown.RescaleTransferFunctionToDataRange(True, False)
    shown.SetScalarBarVisibility(view, True)
    bar = simple.GetScalarBar(simple.GetColorTransferFunction(args.field), view)
    bar.TitleColor = [0, 0, 0]
    bar.LabelColor = [0, 0, 0]
    # Each block's outline (the boundary edges of its piece of the plane): the adaptive mesh.
    edges = simple.FeatureEdges(Input=cut)
    edges.BoundaryEdges = 1
    edges.FeatureEdges = 0
    edges.NonManifoldEdges = 0
    edges.ManifoldEdges = 0
    outline = simple.Show(edges, view)
    outline.ColorArrayName = [None, ""]
    outline.DiffuseColor = [0, 0, 0]
    outline.AmbientColor = [0, 0, 0]
    view.CameraParallelProjection = 1
    view.CameraPosition = [0, 0, 10]
    view.CameraFocalPoint = [0, 0, 0]
    view.CameraViewUp = [0, 1, 0]
    simple.ResetCamera(view)
    simple.SaveScreenshot(args.out, view, ImageResolution=[900, 900])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
