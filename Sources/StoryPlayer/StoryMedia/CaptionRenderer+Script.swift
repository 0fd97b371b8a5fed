import Compositor
import StoryModel

// MARK: - The ASS script

extension CaptionRenderer {
    /// The track's header: the canvas as the script's resolution (so sizes are pixels) and the
    /// one style every cue uses: DejaVu Sans in white with a dark outline, on a translucent dark
    /// box (BorderStyle 4, libass's one box behind the whole cue, `boxPadding` around the text;
    /// BorderStyle 3's box per line run overlaps itself, darker where runs meet), bottom-centred
    /// (alignment 2) with the layout's margins. The cues come after, one `ass_process_chunk` each.
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
        Style: Caption,DejaVu Sans,\(size),&H00FFFFFF,&H00FFFFFF,&H40000000,&H40000000,0,0,0,0,100,100,0,0,4,\(padding),0,2,\(left),\(right),\(vertical),1

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
    }

    /// A cue's runs as ASS text: each run opens with its style's overrides (`{\b1\i0\u0}`), line
    /// breaks are `\N`. A backslash in the words is followed by a word joiner, so that `\N` or
    /// `\h` typed in a caption stays text; braces, which would open an override block, are
    /// escaped as libass reads them (`\{`, `\}`).
    static func assText(_ runs: [CaptionRun]) -> String {
        var text = ""
        for run in runs {
            text += "{\\b\(run.bold ? 1 : 0)\\i\(run.italic ? 1 : 0)\\u\(run.underline ? 1 : 0)}"
            for character in run.text {
                switch character {
                case "\n": text += "\\N"
                case "\\": text += "\\\u{2060}"
                case "{": text += "\\{"
                case "}": text += "\\}"
                default: text.append(character)
                }
            }
        }
        return text
    }
}
