internal import CLibass
import Compositor
import Foundation
import StoryModel

/// Sets a text layer's words as a sprite (`LayerSprite`) with libass, which shapes them with
/// HarfBuzz and FriBidi (right-to-left and joined scripts come out as they are read), wraps them
/// to the layer's width, and outlines them; the box behind them is drawn here, around what
/// libass covered, and colour emoji where libass kept their boxes (`EmojiPlaceholders`). The
/// owner of an `ASS_Library` and its `ASS_Renderer`.
///
/// A layer's words do not change while it shows, only its pose, so each is set once and drawn
/// at every pose (`RGBAImage.draw(_:at:)`). Not `Sendable`: libass's renderer keeps caches and
/// is not thread-safe; one render makes its own, on its drawing thread.
package final class TextLayerRenderer {
    private let library: OpaquePointer
    private let renderer: OpaquePointer
    /// Whether fontconfig was set up (the first family name asks for it; a font file or the
    /// default never does, so a render without family names reads no font list).
    private var fontconfigReady = false

    /// `ass_library_init`, `ass_renderer_init`.
    package init() throws(MediaError) {
        guard let library = ass_library_init() else { throw MediaError(.open, "cannot set text", cause: "ass_library_init failed") }
        story_ass_quiet(library)
        guard let renderer = ass_renderer_init(library) else {
            ass_library_done(library)
            throw MediaError(.open, "cannot set text", cause: "ass_renderer_init failed")
        }
        self.library = library
        self.renderer = renderer
    }

    deinit {
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// The layer's words as a sprite, the canvas `canvasWidth` pixels wide (`ass_render_frame`
    /// of a one-event track; the pill behind them, then outlines, then fills).
    package func sprite(for style: StoryLayer.TextStyle, canvasWidth: Int) throws(MediaError) -> LayerSprite {
        try chooseFont(for: style)
        let width = max(64, canvasWidth), height = Int(min(8192, max(512, style.size * 24)))
        ass_set_frame_size(renderer, Int32(width), Int32(height))
        ass_set_storage_size(renderer, Int32(width), Int32(height))
        var script = Array(Self.script(style, width: width, height: height).utf8CString)
        let made = script.withUnsafeMutableBufferPointer { ass_read_memory(library, $0.baseAddress, $0.count - 1, nil) }
        guard let track = made else { throw MediaError(.open, "cannot set the text \"\(style.text)\"", cause: "libass refused its style") }
        defer { ass_free_track(track) }
        let runs = [CaptionRun(text: style.text, bold: style.bold)]
        var emoji = CaptionRenderer.emojiPlaceholders(for: [runs], lineHeight: style.size.rounded())
        var event = Array("0,0,Layer,,0,0,0,,\(CaptionRenderer.assText(runs, emoji: &emoji))".utf8CString)
        event.withUnsafeMutableBufferPointer { ass_process_chunk(track, $0.baseAddress, Int32($0.count - 1), 0, 1000) }
        var change: Int32 = 0
        var parts: [SetGlyphs] = [], emojiBoxes: [SetGlyphs] = [], emojiPlaces: [PlacedEmoji] = []
        var image = ass_render_frame(renderer, track, 0, &change)
        while let part = image?.pointee {
            image = part.next
            guard let bitmap = part.bitmap, part.w > 0, part.h > 0 else { continue }
            if let set = emoji?.emoji(for: part) {
                guard let centre = EmojiPlaceholders.centre(of: part, emoji: set, frameWidth: width, frameHeight: height) else { continue }
                emojiBoxes.append(SetGlyphs(part, bitmap: bitmap))
                emojiPlaces.append(PlacedEmoji(emoji: set, centreX: centre.x, centreY: centre.y))
            } else {
                parts.append(SetGlyphs(part, bitmap: bitmap))
            }
        }
        guard let box = SetGlyphs.union(parts + emojiBoxes) else {
            throw MediaError(.decode, "the text \"\(style.text)\" drew nothing", cause: "no glyph of it in the font")
        }
        return compose(parts, emoji: emojiPlaces, box: box, style: style)
    }

    /// A colour emoji's picture and the middle of the box libass kept for it.
    private struct PlacedEmoji {
        let emoji: SetEmoji
        let centreX: Double
        let centreY: Double
    }

    /// The pill (when the style has one), the glyphs and the emoji, premultiplied, cut to `box` padded.
    private func compose(_ parts: [SetGlyphs], emoji: [PlacedEmoji], box: SetGlyphs.Box, style: StoryLayer.TextStyle) -> LayerSprite {
        let padX = style.background == nil ? 2 : Int((style.size * 0.4).rounded())
        let padY = style.background == nil ? 2 : Int((style.size * 0.22).rounded())
        let width = box.right - box.left + 2 * padX, height = box.bottom - box.top + 2 * padY
        var pixels = [SIMD4<Float>](repeating: .zero, count: width * height)
        if let background = style.background {
            Pill(width: width, height: height, radius: min(Double(height) / 2, style.size * 0.45)).fill(&pixels, color: background)
        }
        for part in parts {
            part.blend(into: &pixels, width: width, height: height, originX: box.left - padX, originY: box.top - padY)
        }
        for placed in emoji {
            let sprite = placed.emoji.sprite
            // As `RGBAImage.draw(_:at:)` lays an upright sprite: its centre rounded to a whole pixel.
            let left = Int((placed.centreX - Double(sprite.width) / 2).rounded()), top = Int((placed.centreY - Double(sprite.height) / 2).rounded())
            sprite.lay(over: &pixels, width: width, height: height, x: left - (box.left - padX), y: top - (box.top - padY))
        }
        return LayerSprite(width: width, height: height, premultiplied: pixels)
    }

    /// The style's font: its file as libass's default font, or its family through fontconfig,
    /// or DejaVu Sans (bold's own file when bold: a synthesised bold of the regular is thinner).
    private func chooseFont(for style: StoryLayer.TextStyle) throws(MediaError) {
        let fallback = Typeface.fontFile(style.bold ? .bold : .regular)
        if let font = style.font, style.fontIsFile {
            guard FileManager.default.isReadableFile(atPath: font) else {
                throw MediaError(.open, "cannot read the font \(font)", cause: "no such file, or not readable")
            }
            ass_set_fonts(renderer, font, nil, Int32(ASS_FONTPROVIDER_NONE.rawValue), nil, 0)
        } else if style.font != nil {
            ass_set_fonts(renderer, fallback, "DejaVu Sans", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, fontconfigReady ? 0 : 1)
            fontconfigReady = true
        } else {
            guard let fallback else { throw MediaError(.open, "cannot set text", cause: "no DejaVu Sans font (install fonts-dejavu-core)") }
            ass_set_fonts(renderer, fallback, "DejaVu Sans", Int32(ASS_FONTPROVIDER_NONE.rawValue), nil, 0)
        }
    }

    /// A one-style script the canvas's width wide (its pixels are the script's), the text
    /// wrapped to the style's width by the side margins, aligned at the top. Encoding -1 has
    /// libass take each line's direction from its first strong letter, as phones do: Arabic words
    /// read right to left, and an emoji after them stands at their left.
    static func script(_ style: StoryLayer.TextStyle, width: Int, height: Int) -> String {
        let margin = Int((Double(width) * (1 - style.wrapWidth) / 2).rounded())
        let alignment = [StoryLayer.TextAlignment.left: 7, .center: 8, .right: 9][style.alignment]!
        let family = style.fontIsFile ? "Layer" : (style.font ?? "DejaVu Sans").replacingOccurrences(of: ",", with: " ")
        return """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: \(width)
        PlayResY: \(height)
        WrapStyle: 0
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Layer,\(family),\(Int(style.size.rounded())),\(assColour(style.color)),\(assColour(style.color)),\(assColour(style.strokeColor)),&HFF000000,\(style.bold ? -1 : 0),0,0,0,100,100,0,0,1,\(ObjectReader.format(style.strokeWidth)),0,\(alignment),\(margin),\(margin),\(Int(style.size)),-1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
    }

    /// `&HAABBGGRR`, alpha inverted (00 opaque).
    private static func assColour(_ colour: RGBAColor) -> String {
        String(format: "&H%02X%02X%02X%02X", 255 - Int(colour.alpha), Int(colour.blue), Int(colour.green), Int(colour.red))
    }
}
