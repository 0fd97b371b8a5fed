internal import CLibass
import Compositor
import Foundation

/// One coverage bitmap libass set (a run's fill, outline or shadow), copied out of libass's
/// memory with its colour and place on the script's frame.
struct SetGlyphs {
    struct Box { var left, top, right, bottom: Int }

    let coverage: [UInt8]
    let width: Int
    let height: Int
    let x: Int
    let y: Int
    /// Straight colour, 0…255.
    let colour: SIMD4<Float>

    init(_ part: ASS_Image, bitmap: UnsafeMutablePointer<UInt8>) {
        width = Int(part.w)
        height = Int(part.h)
        x = Int(part.dst_x)
        y = Int(part.dst_y)
        var rows = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { rows[row * width + column] = bitmap[row * Int(part.stride) + column] }
        }
        coverage = rows
        // libass's colour is RGBA with the alpha inverted (0 is opaque).
        colour = SIMD4(Float(part.color >> 24), Float(part.color >> 16 & 0xFF), Float(part.color >> 8 & 0xFF),
                       Float(255 - (part.color & 0xFF)))
    }

    /// The pixels any part covers; nil when none covers any.
    static func union(_ parts: [SetGlyphs]) -> Box? {
        var box: Box?
        for part in parts {
            for row in 0..<part.height {
                for column in 0..<part.width where part.coverage[row * part.width + column] != 0 {
                    let x = part.x + column, y = part.y + row
                    if var known = box {
                        (known.left, known.top) = (min(known.left, x), min(known.top, y))
                        (known.right, known.bottom) = (max(known.right, x + 1), max(known.bottom, y + 1))
                        box = known
                    } else {
                        box = Box(left: x, top: y, right: x + 1, bottom: y + 1)
                    }
                }
            }
        }
        return box
    }

    /// Lays this part over premultiplied `pixels` (`width`×`height`, whose top-left is the
    /// script's (`originX`, `originY`)).
    func blend(into pixels: inout [SIMD4<Float>], width: Int, height: Int, originX: Int, originY: Int) {
        let share = colour.w / 255
        let premultiplied = SIMD4(colour.x * share, colour.y * share, colour.z * share, colour.w)
        for row in 0..<self.height {
            let target = y + row - originY
            guard target >= 0 && target < height else { continue }
            for column in 0..<self.width {
                let cover = coverage[row * self.width + column]
                let left = x + column - originX
                guard cover != 0, left >= 0, left < width else { continue }
                let source = premultiplied * (Float(cover) / 255)
                let index = target * width + left
                pixels[index] = source + pixels[index] * (1 - source.w / 255)
            }
        }
    }
}

/// The rounded box behind a text layer, its edges anti-aliased by their distance to the shape.
struct Pill {
    let width: Int
    let height: Int
    let radius: Double

    func fill(_ pixels: inout [SIMD4<Float>], color: RGBAColor) {
        let alpha = Float(color.alpha)
        let share = alpha / 255
        let premultiplied = SIMD4(Float(color.red) * share, Float(color.green) * share, Float(color.blue) * share, alpha)
        let halfW = Double(width) / 2, halfH = Double(height) / 2
        for row in 0..<height {
            for column in 0..<width {
                // Signed distance to a rounded rectangle centred on the box.
                let px = abs(Double(column) + 0.5 - halfW) - (halfW - radius)
                let py = abs(Double(row) + 0.5 - halfH) - (halfH - radius)
                let outside = (max(px, 0) * max(px, 0) + max(py, 0) * max(py, 0)).squareRoot() + min(max(px, py), 0) - radius
                let cover = Float(min(max(0.5 - outside, 0), 1))
                if cover > 0 { pixels[row * width + column] = premultiplied * cover }
            }
        }
    }
}
