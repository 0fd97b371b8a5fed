import CRasterSupport
import Foundation

// MARK: - A camera of another shape than the large area

extension RoomPicture {
    /// How bright the blurred fill is beside or above a fitted picture, 0…1: dimmer than the
    /// picture, so the picture's edges read as its edges.
    public static let fillBrightness = 0.6

    /// `picture` whole in a `width`×`height` area, aspect kept and centred, over itself scaled to
    /// cover the area, blurred and darkened: what Stream's and LiveKit's call layouts show for a
    /// landscape camera in a portrait tile, rather than crop its sides or leave black bars. A
    /// picture already within 2 pixels of the fitted size (the room decodes its large video at
    /// that size) is not rescaled.
    public static func fitted(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        guard picture.width > 0, picture.height > 0, width > 0, height > 0 else {
            return RGBAImage(width: max(1, width), height: max(1, height), fill: placeholder)
        }
        let (w, h) = fittedSize(picture, width: width, height: height)
        let shown = picture.scaled(width: w, height: h)
        guard w < width || h < height else { return shown }
        let x = (width - w) / 2, y = (height - h) / 2
        var content = blurredFill(picture, width: width, height: height, under: (x, y, w, h))
        content.paste(shown, x: x, y: y)
        return content
    }

    /// The size `fitted` shows `picture` at in a `width`×`height` area.
    static func fittedSize(_ picture: RGBAImage, width: Int, height: Int) -> (width: Int, height: Int) {
        let fit = min(Double(width) / Double(picture.width), Double(height) / Double(picture.height))
        var w = max(1, min(width, Int((Double(picture.width) * fit).rounded())))
        var h = max(1, min(height, Int((Double(picture.height) * fit).rounded())))
        if abs(w - picture.width) <= 2, abs(h - picture.height) <= 2, picture.width <= width, picture.height <= height {
            (w, h) = (picture.width, picture.height)
        }
        return (w, h)
    }

    /// `fitted(picture, width:height:)` written straight into `canvas` with its top left at
    /// (`x`, `y`) (the area must lie inside the canvas): the same pixels, without the area's
    /// own picture made and then copied, twice, on every frame of a room.
    static func drawFitted(_ picture: RGBAImage, on canvas: inout RGBAImage, x: Int, y: Int, width: Int, height: Int) {
        guard picture.width > 0, picture.height > 0 else {
            canvas.fill(placeholder, columns: x..<(x + width), rows: y..<(y + height))
            return
        }
        let (w, h) = fittedSize(picture, width: width, height: height)
        let shown = picture.scaled(width: w, height: h)
        let hx = (width - w) / 2, hy = (height - h) / 2
        if w < width || h < height {
            let small = fillSource(picture, width: width, height: height)
            if small.width >= 2, small.height >= 2 {
                small.upscale(width: width, height: height, outside: (hx, hy, w, h), into: &canvas, at: (x, y))
            } else {
                // As `upscaled` does for a fill under 2 pixels: the one colour, everywhere.
                canvas.fill(small[0, 0], columns: x..<(x + width), rows: y..<(y + height))
            }
        }
        canvas.paste(shown, x: x + hx, y: y + hy)
    }

    /// `picture` cropped to cover a `width`×`height` area, blurred and darkened, at that size,
    /// except under `hole` (left unwritten: the picture goes there). It is made from a copy about
    /// 32 pixels across, where a strong blur costs next to nothing, then scaled up (bilinear,
    /// which smooths it further) only where it shows: cheap enough for every frame.
    static func blurredFill(_ picture: RGBAImage, width: Int, height: Int,
                            under hole: (x: Int, y: Int, width: Int, height: Int)) -> RGBAImage {
        fillSource(picture, width: width, height: height).upscaled(width: width, height: height, outside: hole)
    }

    /// The blurred fill before it is scaled up: `picture`'s middle in the area's shape, about
    /// 32 pixels across, blurred and darkened.
    static func fillSource(_ picture: RGBAImage, width: Int, height: Int) -> RGBAImage {
        let factor = max(1, max(picture.width, picture.height) / 32)
        let small = RGBAImage.reducedSize(width: picture.width, height: picture.height, by: factor)
        // Only the blocks of the middle are reduced.
        let crop = fillCrop(reducedWidth: small.width, reducedHeight: small.height, width: width, height: height)
        var fill = picture.boxReduced(by: factor, blockColumns: crop.x..<(crop.x + crop.width), blockRows: crop.y..<(crop.y + crop.height))
        fill = fill.blurred(radius: max(1, min(crop.width, crop.height) / 6))
        fill.darken(by: fillBrightness)
        return fill
    }
}

extension RoomPicture {
    /// The middle of a picture reduced to `reducedWidth`×`reducedHeight`, in the shape of a
    /// `width`×`height` area: what the blurred fill keeps of it.
    static func fillCrop(reducedWidth: Int, reducedHeight: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let aspect = Double(width) / Double(height)
        var cropWidth = reducedWidth, cropHeight = reducedHeight
        if Double(cropWidth) / Double(cropHeight) > aspect {
            cropWidth = max(1, min(reducedWidth, Int((Double(cropHeight) * aspect).rounded())))
        } else {
            cropHeight = max(1, min(reducedHeight, Int((Double(cropWidth) / aspect).rounded())))
        }
        return ((reducedWidth - cropWidth) / 2, (reducedHeight - cropHeight) / 2, cropWidth, cropHeight)
    }
}

extension RGBAImage {
    /// The picture resampled to `width`×`height` as `scaled` does, but only outside `hole`,
    /// whose pixels are left as allocated.
    func upscaled(width: Int, height: Int, outside hole: (x: Int, y: Int, width: Int, height: Int)) -> RGBAImage {
        guard self.width >= 2, self.height >= 2 else { return RGBAImage(width: width, height: height, fill: self[0, 0]) }
        var out = RGBAImage(width: width, height: height)
        upscale(width: width, height: height, outside: hole, into: &out, at: (0, 0))
        return out
    }

    /// `upscaled`'s pixels written straight into `target` with their top left at `origin`
    /// (the rectangle must lie inside it): a room's large area drawn without a picture of its
    /// own made, filled and copied on every frame.
    ///
    /// The same arithmetic as `BilinearSampler.sample` at each pixel's centre, in the same order,
    /// so the same bytes, arranged by what each step depends on: a column's texel pair and
    /// weight, then each texel row blended across for every column (`a + (b - a) * fx`), then
    /// each pixel only the vertical step between two of those rows. The picture is about
    /// 32 pixels across and the area hundreds, so nearly all of the work is that last step.
    /// The footprints are the sampler's own; the loops over pixels are in C (`raster_upscale`),
    /// which a debug build runs as loops, where Swift's made a call per pixel.
    func upscale(width: Int, height: Int, outside hole: (x: Int, y: Int, width: Int, height: Int),
                 into target: inout RGBAImage, at origin: (x: Int, y: Int)) {
        precondition(self.width >= 2 && self.height >= 2, "upscaling a picture under 2 pixels")
        precondition(origin.x >= 0 && origin.y >= 0 && origin.x + width <= target.width && origin.y + height <= target.height,
                     "upscaling outside the target")
        let sampler = BilinearSampler(texture: self)
        let columns = (0..<width).map { x in
            let (x0, _, fx, _) = sampler.footprint(u: (Float(x) + 0.5) / Float(width), v: 0)
            return raster_footprint(offset: Int32(x0), weight: fx)
        }
        let rows = (0..<height).map { y in
            let (_, y0, _, fy) = sampler.footprint(u: 0, v: (Float(y) + 0.5) / Float(height))
            return raster_footprint(offset: Int32(y0), weight: fy)
        }
        var across = [Float](repeating: 0, count: self.height * 3 * width)
        let hole = raster_rectangle(x: Int32(clamping: hole.x), y: Int32(clamping: hole.y),
                                    width: Int32(clamping: hole.width), height: Int32(clamping: hole.height))
        let stride = target.width
        pixels.withUnsafeBufferPointer { source in
            target.pixels.withUnsafeMutableBytes { target in
                let corner = target.baseAddress!.assumingMemoryBound(to: UInt32.self) + origin.y * stride + origin.x
                raster_upscale(source.baseAddress!, Int32(self.width), Int32(self.height), columns, Int32(width), rows, Int32(height),
                               hole, &across, corner, Int32(stride))
            }
        }
    }

    /// The `width`×`height` part of the picture whose top left is (`x`, `y`); the rectangle must
    /// lie inside the picture.
    func cropped(x: Int, y: Int, width w: Int, height h: Int) -> RGBAImage {
        precondition(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= width && y + h <= height, "cropping outside the picture")
        var out = RGBAImage(width: w, height: h)
        for row in 0..<h {
            let source = ((y + row) * width + x) * 4
            out.pixels.replaceSubrange((row * w * 4)..<((row + 1) * w * 4), with: pixels[source..<(source + w * 4)])
        }
        return out
    }
}
