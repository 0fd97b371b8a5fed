/// What a story of sound only shows when it has neither a poster nor cover art (a voice note):
/// a neutral dark card with a sound mark, a row of bars as a waveform draws them, and the
/// story's id under it. Unlike the error card it says nothing went wrong: the sound is playing.
public enum SoundCardPicture {
    public static let card = RGBAColor(red: 0x22, green: 0x22, blue: 0x2c)
    public static let mark = RGBAColor(red: 0xb4, green: 0x9c, blue: 0xff)

    /// The bars' heights, as fractions of the tallest: a voice's envelope, the same every time
    /// (a card is a still picture, not the sound's level).
    static let bars: [Double] = [0.28, 0.5, 0.82, 0.6, 1.0, 0.72, 0.42, 0.66, 0.34]

    public static func render(width: Int, height: Int, title: String) -> RGBAImage {
        var picture = RGBAImage(width: width, height: height, fill: card)
        let scale = Double(width) / 720
        let barWidth = 22 * scale, gap = 14 * scale, tallest = 150 * scale
        let total = Double(bars.count) * barWidth + Double(bars.count - 1) * gap
        let cx = Double(width) / 2, cy = Double(height) * 0.42
        for (index, fraction) in bars.enumerated() {
            let barHeight = max(2, tallest * fraction)
            picture.fillRoundedRect(x: cx - total / 2 + Double(index) * (barWidth + gap), y: cy - barHeight / 2,
                                    width: barWidth, height: barHeight, radius: barWidth / 2, color: mark)
        }
        // DejaVu Sans Bold, sized from a 720-wide card as the error card's id is, cut with "…"
        // where it would leave the card.
        let size = max(8, Int((40 * scale).rounded()))
        let face = Typeface.bold
        let text = face.truncated(title, toFit: Int(Double(width) * 0.86), size: size)
        let x = (width - face.width(of: text, size: size)) / 2
        face.draw(text, x: max(0, x), y: Int(cy + tallest / 2 + 36 * scale), size: size, color: .white, on: &picture)
        return picture
    }
}
