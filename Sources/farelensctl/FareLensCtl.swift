import ArgumentParser

@main
struct FareLensCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "farelensctl", abstract: "Administer a FareLens mesh.")
}
