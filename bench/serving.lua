-- wrk script for bench/serving: POST a small JSON body (as a submission would be).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"formId":"bench","ciphertext":"' .. string.rep("A", 1400) .. '"}'
