import Foundation

/// A grid of frames, each labelled with its frame number and timeline time: one picture of a
/// whole render.
public struct ContactSheet: Sendable {
    /// One thumbnail: which frame it is, when it shows, and its picture.
    public struct Frame: Sendable {
        public let number: Int
        public let time: Double
        public let picture: RGBAImage

        public init(number: Int, time: Double, picture: RGBAImage) {
            self.number = number
            self.time = time
            self.picture = picture
        }
    }

    public var columns: Int
    /// Width of one thumbnail in pixels.
    public var cellWidth: Int
    public static let padding = 8
    public static let labelHeight = 18
    /// The labels' text size in pixels; smaller (down to `minimumLabelSize`) when a cell is too
    /// narrow for number and time side by side.
    public static let labelSize = 12
    public static let minimumLabelSize = 7
    public static let background = RGBAColor(red: 0x10, green: 0x10, blue: 0x14)
    public static let numberColor = RGBAColor(red: 0xa8, green: 0xa8, blue: 0xb8)

    public static let defaultColumns = 6

    public init(columns: Int = ContactSheet.defaultColumns, cellWidth: Int = 180) {
        precondition(columns >= 1 && cellWidth >= 8, "a contact sheet needs a column and some width")
        self.columns = columns
        self.cellWidth = cellWidth
    }

    /// The sheet of `frames` (thumbnails of any one size), each labelled below: its frame number
    /// at the left ("#12"), its time at the right ("1.20s").
    public func render(_ frames: [Frame]) -> RGBAImage {
        precondition(!frames.isEmpty, "a contact sheet needs frames")
        let aspect = Double(frames[0].picture.height) / Double(frames[0].picture.width)
        let cellHeight = Int((Double(cellWidth) * aspect).rounded())
        let rows = (frames.count + columns - 1) / columns
        let pad = ContactSheet.padding, label = ContactSheet.labelHeight
        let width = columns * (cellWidth + pad) + pad
        let height = rows * (cellHeight + label + pad) + pad
        var sheet = RGBAImage(width: width, height: height, fill: ContactSheet.background)
        for (index, frame) in frames.enumerated() {
            let origin = cellOrigin(index, cellHeight: cellHeight)
            let thumbnail = frame.picture.scaled(width: cellWidth, height: cellHeight)
            for y in 0..<cellHeight {
                let source = y * cellWidth * 4, target = ((origin.y + y) * width + origin.x) * 4
                sheet.pixels.replaceSubrange(target..<(target + cellWidth * 4), with: thumbnail.pixels[source..<(source + cellWidth * 4)])
            }
            drawLabel(frame, x: origin.x, y: origin.y + cellHeight + 2, on: &sheet)
        }
        return sheet
    }

    // MARK: - Labels

    private func drawLabel(_ frame: Frame, x: Int, y: Int, on sheet: inout RGBAImage) {
        let number = ContactSheet.numberLabel(frame.number), time = ContactSheet.label(frame.time)
        let size = labelTextSize(number: number, time: time)
        let face = Typeface.regular
        face.draw(number, x: x, y: y, size: size, color: ContactSheet.numberColor, on: &sheet)
        face.draw(time, x: x + cellWidth - face.width(of: time, size: size), y: y, size: size, color: .white, on: &sheet)
    }

    /// The largest size at which number and time fit the cell with a gap between them.
    public func labelTextSize(number: String, time: String) -> Int {
        var size = ContactSheet.labelSize
        while size > ContactSheet.minimumLabelSize,
              Typeface.regular.width(of: number + "  " + time, size: size) > cellWidth { size -= 1 }
        return size
    }

    /// Top-left corner of cell `index` (row-major).
    public func cellOrigin(_ index: Int, cellHeight: Int) -> (x: Int, y: Int) {
        let pad = ContactSheet.padding
        return (pad + (index % columns) * (cellWidth + pad), pad + (index / columns) * (cellHeight + ContactSheet.labelHeight + pad))
    }

    /// "12.30s".
    public static func label(_ seconds: Double) -> String {
        String(format: "%.2fs", seconds)
    }

    /// "#123".
    public static func numberLabel(_ frame: Int) -> String {
        "#\(frame)"
    }
}
