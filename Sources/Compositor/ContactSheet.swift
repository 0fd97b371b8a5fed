import Foundation

/// A grid of frames, each labelled with its timeline time: one picture of a whole render.
public struct ContactSheet: Sendable {
    public var columns: Int
    /// Width of one thumbnail in pixels.
    public var cellWidth: Int
    public static let padding = 8
    public static let labelHeight = 18
    public static let background = RGBAColor(red: 0x10, green: 0x10, blue: 0x14)

    public static let defaultColumns = 6

    public init(columns: Int = ContactSheet.defaultColumns, cellWidth: Int = 180) {
        precondition(columns >= 1 && cellWidth >= 8, "a contact sheet needs a column and some width")
        self.columns = columns
        self.cellWidth = cellWidth
    }

    /// The sheet of `frames` (thumbnails of any one size) with labels of timeline seconds.
    public func render(_ frames: [(time: Double, picture: RGBAImage)]) -> RGBAImage {
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
            BitmapFont.draw(ContactSheet.label(frame.time), x: origin.x, y: origin.y + cellHeight + 3, scale: 2,
                            color: .white, on: &sheet)
        }
        return sheet
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
}
