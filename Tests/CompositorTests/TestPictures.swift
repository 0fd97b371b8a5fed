import Compositor

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

/// A seeded generator (SplitMix64), so that a failing test fails again with the same bytes.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
