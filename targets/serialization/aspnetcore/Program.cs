// Study 002's ASP.NET Core client service: it calls the records API and
// answers /testNoProcess (bytes passed through), /testReflection
// (Newtonsoft.Json, reflection-based) and /testNoReflection (System.Text.Json
// source generation: no reflection at run time), each for ?records=N.
using System.Text.Json.Serialization;

var builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
// The harness lists the records API's replicas in RECORDS_API_ADDRS and says
// where to listen in PORT (the official image's default is 8080).
var upstream = "http://" + (Environment.GetEnvironmentVariable("RECORDS_API_ADDRS") ?? "records-api:8080").Split(',')[0];
if (Environment.GetEnvironmentVariable("PORT") is { } port)
{
    builder.WebHost.UseUrls($"http://*:{port}");
}
builder.Services.AddHttpClient("records", c => c.BaseAddress = new Uri(upstream));
var app = builder.Build();

// The harness reads this line to record the runtime version.
Console.WriteLine($"runtime: dotnet {Environment.Version}");

app.MapGet("/testNoProcess", async (int records, IHttpClientFactory f, HttpContext ctx) =>
{
    using var resp = await f.CreateClient("records").GetAsync($"/?n={records}", HttpCompletionOption.ResponseHeadersRead);
    resp.EnsureSuccessStatusCode();
    ctx.Response.ContentType = "application/json";
    await resp.Content.CopyToAsync(ctx.Response.Body);
});

app.MapGet("/testReflection", async (int records, IHttpClientFactory f, HttpContext ctx) =>
{
    var body = await f.CreateClient("records").GetStringAsync($"/?n={records}");
    var list = Newtonsoft.Json.JsonConvert.DeserializeObject<List<Record>>(body);
    ctx.Response.ContentType = "application/json";
    await ctx.Response.WriteAsync(Newtonsoft.Json.JsonConvert.SerializeObject(list));
});

app.MapGet("/testNoReflection", async (int records, IHttpClientFactory f, HttpContext ctx) =>
{
    await using var stream = await f.CreateClient("records").GetStreamAsync($"/?n={records}");
    var list = await System.Text.Json.JsonSerializer.DeserializeAsync(stream, RecordsContext.Default.ListRecord);
    ctx.Response.ContentType = "application/json";
    await System.Text.Json.JsonSerializer.SerializeAsync(ctx.Response.Body, list!, RecordsContext.Default.ListRecord);
});

app.Run();

public sealed class Record
{
    public string Id { get; set; } = "";
    public string Name { get; set; } = "";
    public long Time { get; set; }
}

[JsonSerializable(typeof(List<Record>))]
internal partial class RecordsContext : JsonSerializerContext
{
}
