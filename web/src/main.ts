// The dashboard's entry point. Placeholder until the pages land (issue #21).
const main = document.createElement('main')
const heading = document.createElement('h1')
heading.textContent = 'qrctl'
main.append(heading)
document.body.append(main)
