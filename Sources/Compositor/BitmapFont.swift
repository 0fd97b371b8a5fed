/// A 5×7 pixel font for labels on contact sheets and timelines: digits, letters (upper case is
/// drawn for lower case too) and a little punctuation. No font library is needed.
public enum BitmapFont {
    /// Glyph rows, top to bottom; each row's five low bits are its pixels, left to right.
    static let glyphs: [Character: [UInt8]] = [
        "0": [14, 17, 19, 21, 25, 17, 14], "1": [4, 12, 4, 4, 4, 4, 14], "2": [14, 17, 1, 2, 4, 8, 31],
        "3": [31, 2, 4, 2, 1, 17, 14], "4": [2, 6, 10, 18, 31, 2, 2], "5": [31, 16, 30, 1, 1, 17, 14],
        "6": [6, 8, 16, 30, 17, 17, 14], "7": [31, 1, 2, 4, 8, 8, 8], "8": [14, 17, 17, 14, 17, 17, 14],
        "9": [14, 17, 17, 15, 1, 2, 12],
        "A": [14, 17, 17, 31, 17, 17, 17], "B": [30, 17, 17, 30, 17, 17, 30], "C": [14, 17, 16, 16, 16, 17, 14],
        "D": [28, 18, 17, 17, 17, 18, 28], "E": [31, 16, 16, 30, 16, 16, 31], "F": [31, 16, 16, 30, 16, 16, 16],
        "G": [14, 17, 16, 23, 17, 17, 15], "H": [17, 17, 17, 31, 17, 17, 17], "I": [14, 4, 4, 4, 4, 4, 14],
        "J": [7, 2, 2, 2, 2, 18, 12], "K": [17, 18, 20, 24, 20, 18, 17], "L": [16, 16, 16, 16, 16, 16, 31],
        "M": [17, 27, 21, 21, 17, 17, 17], "N": [17, 17, 25, 21, 19, 17, 17], "O": [14, 17, 17, 17, 17, 17, 14],
        "P": [30, 17, 17, 30, 16, 16, 16], "Q": [14, 17, 17, 17, 21, 18, 13], "R": [30, 17, 17, 30, 20, 18, 17],
        "S": [15, 16, 16, 14, 1, 1, 30], "T": [31, 4, 4, 4, 4, 4, 4], "U": [17, 17, 17, 17, 17, 17, 14],
        "V": [17, 17, 17, 17, 17, 10, 4], "W": [17, 17, 17, 21, 21, 21, 10], "X": [17, 17, 10, 4, 10, 17, 17],
        "Y": [17, 17, 17, 10, 4, 4, 4], "Z": [31, 1, 2, 4, 8, 16, 31],
        ".": [0, 0, 0, 0, 0, 12, 12], ":": [0, 12, 12, 0, 12, 12, 0], "-": [0, 0, 0, 31, 0, 0, 0],
        "_": [0, 0, 0, 0, 0, 0, 31], "#": [10, 10, 31, 10, 31, 10, 10], "/": [1, 1, 2, 4, 8, 16, 16],
        "(": [2, 4, 8, 8, 8, 4, 2], ")": [8, 4, 2, 2, 2, 4, 8], "%": [24, 25, 2, 4, 8, 19, 3],
        ">": [8, 4, 2, 1, 2, 4, 8], "<": [2, 4, 8, 16, 8, 4, 2], "=": [0, 0, 31, 0, 31, 0, 0],
        "+": [0, 4, 4, 31, 4, 4, 0], ",": [0, 0, 0, 0, 12, 4, 8], "?": [14, 17, 1, 2, 4, 0, 4], " ": [0, 0, 0, 0, 0, 0, 0],
    ]

    public static let glyphWidth = 5, glyphHeight = 7, spacing = 1

    /// The width in pixels of `text` drawn at `scale`.
    public static func width(of text: String, scale: Int = 1) -> Int {
        guard !text.isEmpty else { return 0 }
        return (text.count * (glyphWidth + spacing) - spacing) * scale
    }

    /// Draws `text` with its top-left corner at (x, y); unknown characters draw as "?".
    public static func draw(_ text: String, x: Int, y: Int, scale: Int = 1, color: RGBAColor, on image: inout RGBAImage) {
        var cursor = x
        for character in text {
            let rows = glyphs[Character(character.uppercased())] ?? glyphs["?"]!
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (1 << (glyphWidth - 1 - column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = cursor + column * scale + dx, py = y + row * scale + dy
                            if px >= 0 && px < image.width && py >= 0 && py < image.height {
                                image.blend(x: px, y: py, color: color, coverage: 1)
                            }
                        }
                    }
                }
            }
            cursor += (glyphWidth + spacing) * scale
        }
    }
}
