import Compositor
import Foundation
import StoryPlayer

// Uses both products' public API: parses a storyboard and encodes a picture as PNG.
let board = try Storyboard(json: Data(#"{"stories": [{"items": [{"uri": "a.png"}]}]}"#.utf8), folder: "/")
let png = try RGBAImage(width: 4, height: 4, fill: .black).pngData()
print("consumer: \(board.stories.count) story, \(png.count) PNG bytes")
