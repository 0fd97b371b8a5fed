import Compositor
// The seeded generator, shared with the other test targets. Exported so that every test file of
// this target sees it without an import of its own.
@_exported import StoryTestSupport

/// Small synthetic textures for raster tests.
enum TestPictures {
    static func solid(_ color: RGBAColor, width: Int, height: Int) -> RGBAImage {
        RGBAImage(width: width, height: height, fill: color)
    }

    /// Red rises left to right, green top to bottom: every texel has its own colour.
    static func ramp(width: Int, height: Int, blue: UInt8 = 0) -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBAColor(red: UInt8(x * 255 / max(1, width - 1)),
                                        green: UInt8(y * 255 / max(1, height - 1)), blue: blue)
            }
        }
        return image
    }

    /// Video-like rows for the PNG writer: bands of seeded noise (mostly literals after a
    /// filter), flat bands (runs, many longer than deflate's 258), and a one-pixel stripe pattern.
    static func noisyBands(width: Int, height: Int, seed: UInt64 = 7) -> RGBAImage {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = UInt8(truncatingIfNeeded: state >> 56)
                let i = (y * width + x) * 4
                switch (y / 7) % 3 {
                case 0: pixels[i] = noise; pixels[i + 1] = noise &+ 40; pixels[i + 2] = UInt8(x & 0xff)
                case 1: pixels[i] = 30; pixels[i + 1] = 30; pixels[i + 2] = 30
                default: pixels[i] = x % 2 == 0 ? 200 : 10; pixels[i + 1] = 0; pixels[i + 2] = noise >> 6
                }
                pixels[i + 3] = y % 5 == 0 ? noise : 255
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// Rows as a decoded video gives them to the PNG writer: each row the one above plus small
    /// noise (residuals within ±8, the coder's near literals), now and then a large jump (far
    /// literals), grey stretches of 1-150 pixels at random places (runs of one byte, some longer
    /// than deflate's 258, some ending the row), rows repeated whole (runs of zeros under the Up
    /// filter) and an alpha that is mostly opaque.
    static func videoLike(width: Int, height: Int, seed: UInt64) -> RGBAImage {
        var random = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let repeatsAbove = y > 0 && random.next() % 6 == 0
            var grey = 0, level: UInt8 = 0
            for x in 0..<width {
                let i = (y * width + x) * 4
                if repeatsAbove {
                    for c in 0..<4 { pixels[i + c] = pixels[i + c - width * 4] }
                    continue
                }
                if grey == 0 && random.next() % 19 == 0 {
                    grey = Int(random.next() % 150) + 1
                    level = UInt8(truncatingIfNeeded: random.next())
                }
                for c in 0..<3 {
                    if grey > 0 {
                        pixels[i + c] = level
                    } else {
                        let above = y > 0 ? pixels[i + c - width * 4] : 128
                        let step = random.next() % 29 == 0 ? UInt8(truncatingIfNeeded: random.next())
                                                           : UInt8(truncatingIfNeeded: Int(random.next() % 17) - 8)
                        pixels[i + c] = above &+ step
                    }
                }
                if grey > 0 { grey -= 1 }
                pixels[i + 3] = random.next() % 11 == 0 ? UInt8(truncatingIfNeeded: random.next()) : 255
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    /// The picture with every alpha 255, as an RGB file decodes.
    static func opaque(_ image: RGBAImage) -> RGBAImage {
        var opaque = image
        for y in 0..<image.height {
            for x in 0..<image.width { opaque[x, y].alpha = 255 }
        }
        return opaque
    }

    /// White with a red column at u = 0.5.
    static func centreLine(width: Int, height: Int) -> RGBAImage {
        var image = RGBAImage(width: width, height: height, fill: .white)
        for y in 0..<height {
            for x in (width / 2 - 2)..<(width / 2 + 2) { image[x, y] = RGBAColor(red: 255, green: 0, blue: 0) }
        }
        return image
    }

    static func render(_ transition: PageTransition, pageOffset: Double, textures: [RGBAImage],
                       width: Int, height: Int, background: RGBAColor = .black, threads: Int = 2) -> RGBAImage {
        let faces = transition.faces(pageOffset: pageOffset, width: width, height: height).map {
            TexturedFace(texture: textures[$0.page], placement: $0)
        }
        var canvas = RGBAImage(width: width, height: height)
        Rasterizer(threads: threads).draw(faces, background: background, into: &canvas)
        return canvas
    }
}
