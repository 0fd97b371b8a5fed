internal import CLibass
import Compositor

/// The colour emoji of one ASS script. libass lays out the line (wrapping, alignment, right to
/// left) but draws outlines only, so each emoji goes to libass as an invisible box of its size
/// (a `\p1` drawing), and comes back as one of its images, found by a colour no text has; the
/// emoji's picture is drawn there instead (`EmojiFont`).
///
/// The box's fill is 254/255 transparent, its outline and shadow wholly, so a box drawn by
/// mistake changes nothing. Its colour is `A5 hh ll` with the alpha byte FE: `hh ll` is the
/// emoji's number in `set` times two, plus one every other emoji, because libass joins two
/// neighbours of one colour into one image and each must come back on its own.
struct EmojiPlaceholders {
    let font: EmojiFont
    /// libass's font size (ascent plus descent) in pixels.
    let lineHeight: Double
    private(set) var set: [SetEmoji] = []
    private var numbers: [String: Int] = [:]
    private var odd = false

    init(font: EmojiFont, lineHeight: Double) {
        (self.font, self.lineHeight) = (font, lineHeight)
    }

    /// The ASS drawing that stands for `character` on the line, then `restoring` (the overrides
    /// that bring back the run's own style after `\r`); nil when it is not a colour emoji the
    /// font draws.
    mutating func placeholder(for character: Character, restoring: String) -> String? {
        let text = String(character)
        let number: Int
        if let known = numbers[text] {
            number = known
        } else {
            guard set.count < 0x7FFF, let emoji = font.emoji(character, lineHeight: lineHeight) else { return nil }
            number = set.count
            set.append(emoji)
            numbers[text] = number
        }
        let emoji = set[number]
        let code = number * 2 + (odd ? 1 : 0)
        odd.toggle()
        let width = emoji.sprite.width, height = emoji.sprite.height
        // The drawing's bottom sits on the baseline; \pbo lowers it by the descent, so that the
        // box stands where the emoji font's own line would.
        let descent = height - emoji.ascent
        let colour = String(format: "&H%02X%02XA5&", code & 0xFF, code >> 8)
        return "{\\1c\(colour)\\1a&HFE&\\3a&HFF&\\4a&HFF&\\pbo\(descent)\\p1}m 0 0 l \(width) 0 \(width) \(height) 0 \(height){\\p0\\r\(restoring)}"
    }

    /// The emoji a libass image stands for, by its colour; nil for the text's own images.
    func emoji(for image: ASS_Image) -> SetEmoji? {
        guard image.type == IMAGE_TYPE_CHARACTER, image.color & 0xFF == 0xFE, image.color >> 24 == 0xA5 else { return nil }
        let number = Int(image.color >> 8 & 0xFFFF) / 2
        return number < set.count ? set[number] : nil
    }

    /// Where the emoji's box lies on the script's frame (`frameWidth`×`frameHeight`): the middle
    /// of the pixels its image covers by half or more (the box's edges are anti-aliased when it
    /// stands between pixels). libass cuts its images to the frame, so a box cut at a frame's
    /// edge is placed from its other side, at the emoji's own size.
    static func centre(of image: ASS_Image, emoji: SetEmoji, frameWidth: Int, frameHeight: Int) -> (x: Double, y: Double)? {
        guard let bitmap = image.bitmap, image.w > 0, image.h > 0,
              let box = CaptionRenderer.covered(bitmap, width: Int(image.w), height: Int(image.h), stride: Int(image.stride),
                                                atLeast: 128) else { return nil }
        let x = Int(image.dst_x), y = Int(image.dst_y)
        return (middle(x + box.left, x + box.right, size: emoji.sprite.width, frame: frameWidth),
                middle(y + box.top, y + box.bottom, size: emoji.sprite.height, frame: frameHeight))
    }

    /// The middle of a box covering `low..<high` of a frame `frame` pixels long, `size` long
    /// itself: cut at one end of the frame, it reaches on from its other end.
    private static func middle(_ low: Int, _ high: Int, size: Int, frame: Int) -> Double {
        let half = Double(size) / 2
        guard high - low < size - 1 else { return Double(low + high) / 2 }
        if low <= 0 && high < frame { return Double(high) - half }
        if high >= frame && low > 0 { return Double(low) + half }
        return Double(low + high) / 2
    }
}
