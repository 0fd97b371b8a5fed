internal import CFreeType
internal import CHarfBuzz
import Compositor
import Foundation
import Synchronization

/// A colour emoji font (Noto Color Emoji, from Debian's fonts-noto-color-emoji): HarfBuzz shapes
/// an emoji's sequence (a skin tone, a family joined by ZWJs, a flag's two letters) into the
/// glyph the font draws for it, and FreeType renders that glyph's colour bitmap. libass draws
/// glyph outlines only, so the text around an emoji is still libass's (`EmojiPlaceholders`).
///
/// The owner of an `FT_Library` and its `FT_Face`, and HarfBuzz's blob, face and font of the same
/// file. One for the process (`standard`), shared by every text setter: FreeType's face is not
/// thread-safe, so it lives behind a `Mutex` with the emoji set so far, which are immutable
/// values drawn outside the lock.
final class EmojiFont: Sendable {
    /// The file the font was read from.
    let path: String
    private let state: Mutex<EmojiFace>

    /// Where Debian (and other distributions) keep Noto Color Emoji.
    static let knownFiles = ["/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
                             "/usr/share/fonts/noto/NotoColorEmoji.ttf",
                             "/usr/share/fonts/google-noto-emoji/NotoColorEmoji.ttf",
                             "/usr/share/fonts/noto-emoji/NotoColorEmoji.ttf"]

    /// The process's emoji font, opened on first use; nil when none is installed (emoji are then
    /// left to libass, which draws what outline fonts have of them).
    static let standard: EmojiFont? = knownFiles.lazy.compactMap { try? EmojiFont(path: $0) }.first

    /// Opens the font in `path`: `FT_Init_FreeType`, `FT_New_Face`, and `FT_Select_Size` of its
    /// largest bitmap strike (or `FT_Set_Pixel_Sizes` at 128 for a scalable colour font);
    /// `hb_blob_create_from_file_or_fail`, `hb_face_create`, `hb_font_create`.
    init(path: String) throws(MediaError) {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MediaError(.open, "cannot read the emoji font \(path)", cause: "no such file, or not readable")
        }
        self.path = path
        state = Mutex(try EmojiFace(path: path))
    }

    /// `character` set for a line `lineHeight` pixels high (libass's font size: ascent plus
    /// descent): its picture and the box it takes on the line. nil when `character` is not a
    /// colour emoji or the font has no glyph for it (`hb_shape` gives glyph 0).
    func emoji(_ character: Character, lineHeight: Double) -> SetEmoji? {
        guard Self.isColourEmoji(character), lineHeight >= 1, lineHeight <= 4096 else { return nil }
        let key = SetEmoji.Key(text: String(character), lineHeight: Int((lineHeight * 4).rounded()))
        return state.withLock { face in
            if let known = face.set[key] { return known }
            let made = face.setEmoji(key.text, lineHeight: lineHeight)
            face.set[key] = made
            return made
        }
    }

    /// Whether `character` is drawn as a colour emoji: its first scalar is one by default
    /// (Emoji_Presentation: 😀, a flag's letters), or asks to be (U+FE0F, as in ❤️ and 1️⃣), or
    /// carries a skin tone or a ZWJ. A character that is an emoji only as text (☺, #, a digit)
    /// stays text, as phones show it.
    static func isColourEmoji(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard let first = scalars.first, first.properties.isEmoji else { return false }
        if first.properties.isEmojiPresentation { return true }
        return scalars.dropFirst().contains { $0 == "\u{FE0F}" || $0 == "\u{200D}" || $0.properties.isEmojiModifier }
    }
}

/// One emoji set at a line height: its picture, as wide as its advance and as high as the line.
struct SetEmoji: Sendable {
    struct Key: Hashable {
        let text: String
        /// The line height in quarter pixels.
        let lineHeight: Int
    }

    let sprite: LayerSprite
    /// Pixels from the box's top to the baseline.
    let ascent: Int
}

// MARK: - The C objects

/// FreeType's library and face, HarfBuzz's blob, face and font, and the emoji set so far. One
/// owner for all five because they read one file and are freed together.
struct EmojiFace: ~Copyable {
    private let library: FT_Library
    private let face: FT_Face
    private let blob: OpaquePointer
    private let shapingFace: OpaquePointer
    private let font: OpaquePointer
    /// Font units per em, the line's ascent and descent (descent negative).
    private let unitsPerEm: Double
    private let ascender: Double
    private let descender: Double
    /// Pixels per em of the bitmaps FreeType renders.
    private let strike: Double
    var set: [SetEmoji.Key: SetEmoji?] = [:]

    init(path: String) throws(MediaError) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else {
            throw MediaError(.open, "cannot draw emoji", cause: "FT_Init_FreeType failed")
        }
        var face: FT_Face?
        let opened = FT_New_Face(library, path, 0, &face)
        guard opened == 0, let face else {
            FT_Done_FreeType(library)
            throw MediaError(.open, "cannot open the emoji font \(path)", cause: "FT_New_Face error \(opened)")
        }
        if story_ft_is_scalable(face) == 0, face.pointee.num_fixed_sizes > 0 {
            // The largest strike: it is reduced to the line's size, never enlarged when avoidable.
            let sizes = UnsafeBufferPointer(start: face.pointee.available_sizes, count: Int(face.pointee.num_fixed_sizes))
            let largest = sizes.indices.max { sizes[$0].y_ppem < sizes[$1].y_ppem } ?? 0
            FT_Select_Size(face, FT_Int(largest))
        } else {
            FT_Set_Pixel_Sizes(face, 0, 128)
        }
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw MediaError(.open, "cannot open the emoji font \(path)", cause: "hb_blob_create_from_file_or_fail failed")
        }
        let shapingFace = hb_face_create(blob, 0)!
        let font = hb_font_create(shapingFace)!
        (self.library, self.face, self.blob, self.shapingFace, self.font) = (library, face, blob, shapingFace, font)
        // A face of bitmaps only has no units per em nor ascent in FreeType's face record
        // (they are a scalable face's); HarfBuzz reads them from the font's tables. The line is
        // OS/2's usWinAscent and usWinDescent, which libass sizes every font by.
        unitsPerEm = Double(max(1, hb_face_get_upem(shapingFace)))
        var ascent: hb_position_t = 0, descent: hb_position_t = 0
        if hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_CLIPPING_ASCENT, &ascent) != 0,
           hb_ot_metrics_get_position(font, HB_OT_METRICS_TAG_HORIZONTAL_CLIPPING_DESCENT, &descent) != 0, ascent + abs(descent) > 0 {
            (ascender, descender) = (Double(ascent), -Double(abs(descent)))
        } else {
            var extents = hb_font_extents_t()
            hb_font_get_h_extents(font, &extents)
            (ascender, descender) = (Double(extents.ascender), Double(extents.descender))
        }
        strike = Double(max(1, face.pointee.size.pointee.metrics.y_ppem))
        // hb_font_create's scale is the face's units per em, so advances come in font units.
    }

    deinit {
        hb_font_destroy(font)
        hb_face_destroy(shapingFace)
        hb_blob_destroy(blob)
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// `text` shaped (`hb_shape`) and drawn (`FT_Load_Glyph` with `FT_LOAD_COLOR`) at the
    /// strike, then reduced to the line: `lineHeight` is ascent plus descent, as libass sizes
    /// a font, so an emoji stands as high as its font would in libass's own line.
    mutating func setEmoji(_ text: String, lineHeight: Double) -> SetEmoji? {
        guard let glyphs = shape(text), !glyphs.isEmpty, ascender > descender else { return nil }
        let lineUnits = ascender - descender
        let advanceUnits = glyphs.reduce(0) { $0 + Double($1.advance) }
        // At the strike: the picture of every glyph along a baseline.
        let strikeScale = strike / unitsPerEm
        let strikeAscent = Int((ascender * strikeScale).rounded())
        let strikeWidth = max(1, Int((advanceUnits * strikeScale).rounded()))
        let strikeHeight = max(1, Int((lineUnits * strikeScale).rounded()))
        var picture = RGBAImage(width: strikeWidth, height: strikeHeight, fill: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0))
        var pen = 0.0
        for glyph in glyphs {
            let originX = Int(((pen + Double(glyph.offsetX)) * strikeScale).rounded())
            let baseline = strikeAscent - Int((Double(glyph.offsetY) * strikeScale).rounded())
            guard drawGlyph(glyph.id, on: &picture, penX: originX, baseline: baseline) else { return nil }
            pen += Double(glyph.advance)
        }
        // On the line: as high as libass's line, as wide as the advance at that size.
        let scale = lineHeight / lineUnits
        let width = max(1, Int((advanceUnits * scale).rounded())), height = max(1, Int(lineHeight.rounded()))
        return SetEmoji(sprite: LayerSprite(reducing: picture, toWidth: width, height: height),
                        ascent: Int((ascender * scale).rounded()))
    }

    /// The glyphs HarfBuzz shapes `text` into, with advances and offsets in font units; nil when
    /// one of them is missing from the font (glyph 0).
    private func shape(_ text: String) -> [(id: UInt32, advance: Int32, offsetX: Int32, offsetY: Int32)]? {
        guard let buffer = hb_buffer_create() else { return nil }
        defer { hb_buffer_destroy(buffer) }
        let utf8 = Array(text.utf8)
        utf8.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { hb_buffer_add_utf8(buffer, $0.baseAddress, Int32($0.count), 0, Int32($0.count)) }
        }
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count), count > 0 else { return nil }
        var glyphs: [(id: UInt32, advance: Int32, offsetX: Int32, offsetY: Int32)] = []
        for index in 0..<Int(count) {
            guard infos[index].codepoint != 0 else { return nil }
            glyphs.append((infos[index].codepoint, positions[index].x_advance, positions[index].x_offset, positions[index].y_offset))
        }
        return glyphs
    }

    /// Lays glyph `id`'s colour bitmap (premultiplied BGRA) over `picture` (straight RGBA), its
    /// origin at (`penX`, `baseline`). false when FreeType cannot render it in colour.
    private func drawGlyph(_ id: UInt32, on picture: inout RGBAImage, penX: Int, baseline: Int) -> Bool {
        guard FT_Load_Glyph(face, id, story_ft_colour_flags()) == 0 else { return false }
        let slot = face.pointee.glyph.pointee
        let bitmap = slot.bitmap
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue), let buffer = bitmap.buffer else { return false }
        let left = penX + Int(slot.bitmap_left), top = baseline - Int(slot.bitmap_top)
        let width = picture.width, height = picture.height
        picture.pixels.withUnsafeMutableBufferPointer { target in
            for row in 0..<Int(bitmap.rows) {
                let y = top + row
                guard y >= 0 && y < height else { continue }
                let line = buffer + row * Int(bitmap.pitch)
                for column in 0..<Int(bitmap.width) {
                    let x = left + column
                    guard x >= 0 && x < width else { continue }
                    let alpha = Int(line[column * 4 + 3])
                    guard alpha > 0 else { continue }
                    // Premultiplied BGRA over straight RGBA.
                    let at = (y * width + x) * 4
                    let below = Int(target[at + 3])
                    let outAlpha = alpha + below * (255 - alpha) / 255
                    for (channel, source) in [(0, 2), (1, 1), (2, 0)] {
                        let over = Int(line[column * 4 + source]) * 255 + Int(target[at + channel]) * below * (255 - alpha) / 255
                        target[at + channel] = UInt8(min(255, over / max(1, outAlpha)))
                    }
                    target[at + 3] = UInt8(outAlpha)
                }
            }
        }
        return true
    }
}
