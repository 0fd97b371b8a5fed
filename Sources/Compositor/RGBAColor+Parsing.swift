// Colours as a storyboard or a command line writes them, the way CSS does.

extension RGBAColor {
    /// The forms `init?(parsing:)` reads, for error messages.
    public static let spokenForms = "\"#RGB\", \"#RGBA\", \"#RRGGBB\", \"#RRGGBBAA\" or \"transparent\""

    /// Parses a CSS colour: `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (hex digits of either case;
    /// a short form doubles each digit, so `#f80` is `#ff8800`), or `transparent` (any case). Alpha is 255
    /// unless given. Nil for anything else.
    public init?(parsing text: String) {
        if text.lowercased() == "transparent" {
            self = .transparent
            return
        }
        self.init(hex: text)
    }

    /// Parses `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA`; nil for anything else.
    public init?(hex: String) {
        guard hex.hasPrefix("#") else { return nil }
        // Digits one by one: `UInt32(_:radix:)` would also take a sign ("#+12345").
        var nibbles: [UInt8] = []
        for character in hex.utf8.dropFirst() {
            guard let nibble = Self.nibble(character) else { return nil }
            nibbles.append(nibble)
        }
        let channels: [UInt8]
        switch nibbles.count {
        case 3, 4: channels = nibbles.map { $0 << 4 | $0 }
        case 6, 8: channels = stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
        default: return nil
        }
        self.init(red: channels[0], green: channels[1], blue: channels[2], alpha: channels.count == 4 ? channels[3] : 255)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
