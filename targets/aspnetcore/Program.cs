// ASP.NET Core minimal API on Kestrel answering the harness's plaintext and
// json scenarios, as `dotnet new web` writes a service. Logging is set by the
// matrix's variants through configuration (Logging__LogLevel__* variables).
var builder = WebApplication.CreateBuilder(args);
// The harness says where to listen in PORT (the official image's default is 8080).
if (Environment.GetEnvironmentVariable("PORT") is { } port)
{
    builder.WebHost.UseUrls($"http://*:{port}");
}
var app = builder.Build();

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");

app.MapGet("/plaintext", () => Results.Text("Hello, World!", "text/plain"));
app.MapGet("/json", () => new Message("Hello, World!"));

app.Run();

record Message(string message);
