"""Reading inputs: results folders, artifact zips and plain logs, and the Allure files inside them."""
