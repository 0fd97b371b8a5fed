import CRasterSupport
import Foundation

/// How far two pictures of one size are apart, as video tools measure it: both are turned into
/// YUV 4:2:0 (BT.709, `RGBAImage.writeYUV420`) and compared plane by plane, SSIM as x264 and
/// libavfilter's `ssim` compute it (`raster_plane_ssim`) and PSNR from the squared error
/// (`raster_plane_squared_error`). The whole-picture figures weigh the planes by their samples,
/// 4:1:1, as libavfilter's "All" does; so a colour that changed only in hue shows in them.
public struct PictureDifference: Sendable, Equatable {
    /// SSIM of luma, Cb and Cr, and of the whole (1: the same).
    public let ssimPlanes: [Double]
    public let ssim: Double
    /// PSNR in dB of the whole; nil when no sample differs (ffmpeg prints "inf").
    public let psnr: Double?
    /// Samples of the 4:2:0 pictures that differ (luma and chroma together).
    public var isIdentical: Bool { psnr == nil }

    /// The difference of `a` and `b` (the same size, at least 2x2), within `region` of both when
    /// given (a rectangle of at least 2x2 pixels that must lie inside them). A side of odd length loses its last row or column (4:2:0).
    public init(_ a: RGBAImage, _ b: RGBAImage, region: TileRect? = nil) {
        precondition(a.width == b.width && a.height == b.height, "pictures of different sizes")
        let area = region ?? TileRect(x: 0, y: 0, width: a.width, height: a.height)
        precondition(area.x >= 0 && area.y >= 0 && area.x + area.width <= a.width && area.y + area.height <= a.height,
                     "a region outside the picture")
        let width = area.width & ~1, height = area.height & ~1
        precondition(width >= 2 && height >= 2, "a region under 2x2 pixels")
        let whole = area.x == 0 && area.y == 0 && width == a.width && height == a.height
        let planesA = YUVPlanes(whole ? a : a.cropped(x: area.x, y: area.y, width: width, height: height))
        let planesB = YUVPlanes(whole ? b : b.cropped(x: area.x, y: area.y, width: width, height: height))
        var ssims: [Double] = [], squared: UInt64 = 0
        for plane in 0..<3 {
            let (w, h) = plane == 0 ? (width, height) : (width / 2, height / 2)
            planesA.samples[plane].withUnsafeBufferPointer { pa in
                planesB.samples[plane].withUnsafeBufferPointer { pb in
                    ssims.append(raster_plane_ssim(pa.baseAddress!, Int32(w), pb.baseAddress!, Int32(w), Int32(w), Int32(h)))
                    squared += raster_plane_squared_error(pa.baseAddress!, Int32(w), pb.baseAddress!, Int32(w), Int32(w), Int32(h))
                }
            }
        }
        ssimPlanes = ssims
        ssim = (4 * ssims[0] + ssims[1] + ssims[2]) / 6
        let samples = Double(width * height * 3 / 2)
        psnr = squared == 0 ? nil : 10 * log10(255 * 255 / (Double(squared) / samples))
    }
}

/// A picture's planes in YUV 4:2:0, packed (rows as long as the plane is wide).
struct YUVPlanes {
    var samples: [[UInt8]]

    init(_ image: RGBAImage) {
        let w = image.width, h = image.height
        var luma = [UInt8](repeating: 0, count: w * h)
        var blue = [UInt8](repeating: 0, count: w * h / 4), red = blue
        luma.withUnsafeMutableBufferPointer { y in
            blue.withUnsafeMutableBufferPointer { u in
                red.withUnsafeMutableBufferPointer { v in
                    image.writeYUV420(luma: y.baseAddress!, lumaStride: w, blueDifference: u.baseAddress!,
                                      redDifference: v.baseAddress!, chromaStride: w / 2, matrix: .bt709)
                }
            }
        }
        samples = [luma, blue, red]
    }
}

extension PictureDifference {
    /// A picture of where `a` and `b` (the same size) differ (`raster_difference_picture`): b
    /// dimmed to a quarter of its luma, the difference four times over in red.
    public static func picture(_ a: RGBAImage, _ b: RGBAImage) -> RGBAImage {
        precondition(a.width == b.width && a.height == b.height, "pictures of different sizes")
        var out = [UInt8](repeating: 0, count: a.width * a.height * 4)
        a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                out.withUnsafeMutableBufferPointer { raster_difference_picture(pa.baseAddress!, pb.baseAddress!, a.width * a.height, $0.baseAddress!) }
            }
        }
        return RGBAImage(width: a.width, height: a.height, pixels: out)
    }
}

extension RGBAImage {
    /// A 64-bit hash of the size and every pixel (`raster_hash_bytes`): two renders' frames with
    /// the same fingerprint are taken to be the same picture, without being measured.
    public var fingerprint: UInt64 {
        let pixelHash = pixels.withUnsafeBufferPointer { raster_hash_bytes($0.baseAddress!, width * height * 4) }
        return pixelHash ^ (UInt64(width) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(height) &* 0xC2B2_AE3D_27D4_EB4F)
    }
}
