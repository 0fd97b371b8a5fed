/// What a story that failed shows: what went wrong, not a blank card. Over the story's blurred
/// poster when there is one (else a dark card): an alert icon, the story's id, and the reason,
/// wrapped to the width and cut after a few lines.
public enum ErrorCardPicture {
    public static let card = RGBAColor(red: 0x3a, green: 0x12, blue: 0x18)
    public static let icon = RGBAColor(red: 0xff, green: 0x4d, blue: 0x4d)

    /// `backdrop` is the story's blurred poster, if it has one (any size; it is scaled).
    public static func render(width: Int, height: Int, backdrop: RGBAImage?, title: String, reason: String) -> RGBAImage {
        var picture = backdrop.map { $0.scaled(width: width, height: height) } ?? RGBAImage(width: width, height: height, fill: card)
        if backdrop != nil { picture.darken(by: 0.5) }
        let scale = Double(width) / 720
        let radius = 44 * scale
        let cx = Double(width) / 2, cy = Double(height) * 0.38
        picture.fillRoundedRect(x: cx - radius, y: cy - radius, width: 2 * radius, height: 2 * radius, radius: radius, color: icon)
        picture.fillRoundedRect(x: cx - radius * 0.11, y: cy - radius * 0.55, width: radius * 0.22, height: radius * 0.7,
                                radius: radius * 0.1, color: .white)
        picture.fillRoundedRect(x: cx - radius * 0.12, y: cy + radius * 0.3, width: radius * 0.24, height: radius * 0.24,
                                radius: radius * 0.12, color: .white)
        // DejaVu Sans Bold for the id and Regular for the reason, sized from a 720-wide card.
        let titleSize = max(8, Int((40 * scale).rounded()))
        let textSize = max(8, Int((28 * scale).rounded()))
        var y = Int(cy + radius + 28 * scale)
        drawCentred(title, face: Typeface.bold, y: y, size: titleSize, color: .white, on: &picture)
        y += Typeface.bold.metrics(size: titleSize).lineHeight + Int(8 * scale)
        let lineHeight = Typeface.regular.metrics(size: textSize).lineHeight
        for line in wrap(reason, width: Int(Double(width) * 0.86), face: Typeface.regular, size: textSize).prefix(5) {
            drawCentred(line, face: Typeface.regular, y: y, size: textSize, color: RGBAColor(red: 0xe8, green: 0xd8, blue: 0xdc),
                        on: &picture)
            y += lineHeight
        }
        return picture
    }

    private static func drawCentred(_ text: String, face: Typeface, y: Int, size: Int, color: RGBAColor, on picture: inout RGBAImage) {
        let x = (picture.width - face.width(of: text, size: size)) / 2
        face.draw(text, x: max(0, x), y: y, size: size, color: color, on: &picture)
    }

    /// Words wrapped into lines that fit `width` pixels; a word too long for a line is cut
    /// where it stops fitting.
    static func wrap(_ text: String, width: Int, face: Typeface, size: Int) -> [String] {
        var lines: [String] = [], line = ""
        for word in text.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if face.width(of: candidate, size: size) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            var rest = Substring(word)
            while face.width(of: String(rest), size: size) > width, rest.count > 1 {
                var fits = rest.count - 1
                while fits > 1, face.width(of: String(rest.prefix(fits)), size: size) > width { fits -= 1 }
                lines.append(String(rest.prefix(fits)))
                rest = rest.dropFirst(fits)
            }
            line = String(rest)
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
