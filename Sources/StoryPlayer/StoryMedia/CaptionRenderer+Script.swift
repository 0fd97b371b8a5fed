import Compositor
import StoryModel

// MARK: - The ASS script

extension CaptionRenderer {
    /// The track's header: the canvas as the script's resolution (so sizes are pixels) and the
    /// one style every cue uses: DejaVu Sans in white with a dark outline, on a translucent dark
    /// box (BorderStyle 4, libass's one box behind the whole cue, `boxPadding` around the text;
    /// BorderStyle 3's box per line run overlaps itself, darker where runs meet), bottom-centred
    /// (alignment 2) with the layout's margins; Encoding -1, each line's direction from its first
    /// strong letter (a right-to-left cue ends at its left). The cues come after, one
    /// `ass_process_chunk` each.
    static func script(_ layout: CaptionLayout) -> String {
        let size = Int(layout.fontSize.rounded())
        let padding = Int(layout.boxPadding)
        let left = Int(layout.leftMargin.rounded()), right = Int(layout.rightMargin.rounded())
        let vertical = Int((layout.bottomMargin + layout.boxPadding).rounded())
        // Colours are &HAABBGGRR, alpha 00 opaque: white text; its outline and the box 25 % see-through.
        return """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: \(layout.width)
        PlayResY: \(layout.height)
        WrapStyle: 0
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: Caption,DejaVu Sans,\(size),&H00FFFFFF,&H00FFFFFF,&H40000000,&H40000000,0,0,0,0,100,100,0,0,4,\(padding),0,2,\(left),\(right),\(vertical),-1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
    }

    /// A cue's runs as ASS text: each run opens with its style's overrides (`{\b1\i0\u0}`), line
    /// breaks are `\N`. A backslash in the words is followed by a word joiner, so that `\N` or
    /// `\h` typed in a caption stays text; braces, which would open an override block, are
    /// escaped as libass reads them (`\{`, `\}`).
    static func assText(_ runs: [CaptionRun]) -> String {
        var none: EmojiPlaceholders?
        return assText(runs, emoji: &none)
    }

    /// The same, each colour emoji the font draws made into its placeholder in `emoji`.
    static func assText(_ runs: [CaptionRun], emoji: inout EmojiPlaceholders?) -> String {
        var text = ""
        for run in runs {
            let style = "\\b\(run.bold ? 1 : 0)\\i\(run.italic ? 1 : 0)\\u\(run.underline ? 1 : 0)"
            text += "{\(style)}"
            for character in run.text {
                switch character {
                case "\n": text += "\\N"
                case "\\": text += "\\\u{2060}"
                case "{": text += "\\{"
                case "}": text += "\\}"
                default:
                    if let drawing = emoji?.placeholder(for: character, restoring: style) {
                        text += drawing
                    } else {
                        text.append(character)
                    }
                }
            }
        }
        return text
    }

    /// Placeholders for the colour emoji in `runs`, when there are any and an emoji font is
    /// installed (`EmojiFont.standard`, opened only then), for a line `lineHeight` pixels high.
    static func emojiPlaceholders(for runs: [[CaptionRun]], lineHeight: Double) -> EmojiPlaceholders? {
        guard runs.contains(where: { $0.contains { $0.text.contains(where: EmojiFont.isColourEmoji) } }),
              let font = EmojiFont.standard else { return nil }
        return EmojiPlaceholders(font: font, lineHeight: lineHeight)
    }
}
